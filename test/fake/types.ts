/**
 * The scripting vocabulary shared by every fake wire. A test says *what* the model does (answer, call
 * tools, fail, stall, drop the line); each wire renders it in its own vendor's bytes.
 */
export type FakeReply =
  /**
   * `chunks`: how the text is split into deltas (default: ~3 pieces). They should join to `text`. `truncated`:
   * the model stopped at its output limit, in that wire's own words (Chat Completions `finish_reason: "length"`,
   * Anthropic `stop_reason: "max_tokens"`, Responses `status: "incomplete"` for `max_output_tokens`).
   * `reasoning` (here and on tool_calls): the parts of a reasoning summary the model writes first, such as
   * `"**Heading**\n\nWhy."` (Responses only, as a reasoning item before the output; other wires ignore it).
   */
  | {
      kind: "text";
      text: string;
      chunks?: string[];
      truncated?: boolean;
      reasoning?: string[];
      /** The token counts the wire reports instead of its estimate, each in that wire's own fields. */
      usage?: ReportedUsage;
    }
  | {
      kind: "tool_calls";
      calls: { id?: string; name: string; arguments: Record<string, unknown> }[];
      /** Text the model says before calling the tools. */
      text?: string;
      reasoning?: string[];
    }
  /**
   * Rendered as that wire's real error body for the status: 401 auth, 429 rate limit, 400 context length
   * when `code === "context_length_exceeded"`, 404 model not found, 500, 503, 529… `message` replaces the
   * vendor's wording, `headers` are added to (or override) the vendor's headers.
   */
  | { kind: "error"; status: number; code?: string; message?: string; headers?: Record<string, string> }
  /** Accept the request and never answer (no headers). Freed by `close()`. */
  | { kind: "hang" }
  /** 200, the stream starts and emits `text` as deltas, then the connection is cut (no terminal event). */
  | { kind: "cut"; text: string }
  /** A 200 stream that completes normally with no text and no tool calls. */
  | { kind: "empty" }
  /** Answer `reply` after `ms` (for concurrency and timeout tests). */
  | { kind: "delay"; ms: number; reply: FakeReply };

/** `input` is the whole prompt (cached share included); `reasoning` is part of `output`. */
export type ReportedUsage = { input: number; cached: number; output: number; reasoning: number };

export type RecordedRequest = {
  path: string;
  method: string;
  /** Lower-cased header names, as they arrived. */
  headers: Record<string, string>;
  /** The parsed JSON body; the raw text when it was not valid JSON; undefined when empty. */
  body: any;
  /** The body's size in bytes as it arrived on the wire (what a request budget is measured in). */
  bytes: number;
  /** Epoch milliseconds when the whole body had been read. */
  receivedAt: number;
};

export interface FakeLlm {
  /** What a client puts in OPENAI_BASE_URL / ANTHROPIC_BASE_URL / OLLAMA_BASE_URL etc. */
  readonly baseUrl: string;
  /** Every request that reached the server, including rejected ones, in arrival order. */
  readonly requests: RecordedRequest[];
  /** FIFO; consumed before the default. Requests rejected by validation do not consume a reply. */
  enqueue(...replies: FakeReply[]): void;
  /** Default: `{ kind: "text", text: "pong" }`. */
  setDefault(reply: FakeReply | ((req: RecordedRequest) => FakeReply)): void;
  /** Resolves once `n` requests have been received in total; rejects if the fake closes first. */
  waitForRequests(n: number): Promise<void>;
  close(): Promise<void>;
}

/** The replies a wire renders itself; `hang` and `delay` are handled once by the shared server. */
export type RenderableReply = Exclude<FakeReply, { kind: "hang" } | { kind: "delay" }>;
