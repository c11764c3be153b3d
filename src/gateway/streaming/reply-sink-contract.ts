/**
 * Where one turn's answer goes on a channel. `off` sends the final answer once; the streaming modes show it while
 * it is written: `draft` as one message edited in place and sealed to the answer, `block` as each finished part
 * (text up to a tool call, or the answer) in its own message. Every provider wire streams text deltas, so both
 * work whichever model answers. Only channel turns get a sink: jobs, the CLI and subagents never stream here.
 */
export interface ReplySink {
  /** A text delta from the model, as it streams. */
  onText(delta: string): void;
  /** The model's current output item ended before a tool call (TurnInput.onItemEnd): a block boundary. */
  onItemEnd(): void;
  /**
   * A part of the model's reasoning summary: block streaming shows its heading as its own `💭` message; a draft and
   * `off` show nothing. Never part of the answer, so never in the history.
   */
  onThought(summary: string): void;
  /** The turn's final answer: delivered (or the draft sealed to it). Rejects when the answer could not be sent. */
  finish(text: string): Promise<void>;
  /** The turn was stopped or failed: a draft is deleted; nothing waiting is sent (blocks already sent stay). */
  discard(): Promise<void>;
}
