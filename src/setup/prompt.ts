import { UsageError } from "../cli/exit.ts";
import { registerSecret } from "../config/secret-registry.ts";
import { FermixError } from "../error.ts";

/**
 * The wizard's conversation with a person, apart from the terminal so tests drive it with streams: `input`
 * is what is typed (or piped), `write` where questions go. Nothing is read before it is asked for, so a
 * scripted input answers one question at a time.
 */
export type SetupIo = {
  input: AsyncIterable<Uint8Array | string>;
  write(text: string): Promise<void>;
  /** stdin and stdout are both terminals: the only case in which questions are asked. */
  isTTY: boolean;
  /** Turns the terminal's echo and line editing off (raw) and on again; absent when stdin is no terminal. */
  setRawMode?(raw: boolean): void;
  /** A real terminal's widgets (consola): absent in tests, when piped, and on a terminal of unknown width. */
  ui?: SetupUi;
};

/** ok ✔, warn ⚠, fail ✖, info ℹ on a terminal; the plain words setup always wrote elsewhere. */
export type StatusKind = "ok" | "warn" | "fail" | "info";

/**
 * consola's prompt and status lines (setup/terminal-ui.ts). Only choices and confirmations use its prompt:
 * it has no prompt without echo, so an API key is always read by `Prompter.hidden`, and typed answers keep
 * their checks and re-asking in answers.ts.
 */
export type SetupUi = {
  /** One of `options`, picked with the arrow keys; `initial` is highlighted first. Ctrl-C cancels setup. */
  choose(question: string, options: Array<{ value: string; label: string }>, initial: string): Promise<string>;
  /** Yes or no; `initial` is what Enter takes. Ctrl-C cancels setup. */
  confirm(question: string, initial: boolean): Promise<boolean>;
  /** One status line (its continuation lines indented by the caller), coloured unless NO_COLOR. */
  status(kind: StatusKind, text: string): Promise<void>;
};

export type Prompter = {
  /** Writes without reading: a note between questions. */
  say(text: string): Promise<void>;
  /** Writes `question` and reads one line, without its line ending. */
  line(question: string): Promise<string>;
  /** Writes `question` and reads one line with echo off; nothing typed is written back. */
  hidden(question: string): Promise<string>;
  /** Everything left on the input (a piped key); more than `maxBytes` is a usage error. */
  rest(maxBytes: number): Promise<string>;
  /** The terminal's choice and confirmation widgets when it has them; the caller asks with `line` otherwise. */
  choose?: SetupUi["choose"];
  confirm?: SetupUi["confirm"];
};

export const SetupCancelled = (why: string) => new FermixError("cancelled", `setup ${why}; nothing was written`);

export function createPrompter(io: SetupIo): Prompter {
  let iterator: AsyncIterator<Uint8Array | string> | undefined;
  const decoder = new TextDecoder();
  let buffer = "";
  let ended = false;
  let size = 0;

  /** Reads one more chunk into the buffer; false at the end of the input. */
  const more = async (): Promise<boolean> => {
    if (ended) return false;
    iterator ??= io.input[Symbol.asyncIterator]();
    const next = await iterator.next();
    if (next.done) {
      ended = true;
      buffer += decoder.decode();
      return false;
    }
    const chunk = next.value;
    size += typeof chunk === "string" ? chunk.length : chunk.byteLength;
    buffer += typeof chunk === "string" ? chunk : decoder.decode(chunk, { stream: true });
    return true;
  };

  return {
    choose: io.ui?.choose,
    confirm: io.ui?.confirm,
    say: (text) => io.write(text),
    async line(question) {
      await io.write(question);
      for (;;) {
        const nl = buffer.indexOf("\n");
        if (nl >= 0) {
          const line = buffer.slice(0, nl).replace(/\r$/, "");
          buffer = buffer.slice(nl + 1);
          return line;
        }
        if (!(await more())) {
          if (!buffer) throw SetupCancelled("was cancelled: the input ended before every question was answered");
          const last = buffer;
          buffer = "";
          return last;
        }
      }
    },

    async hidden(question) {
      // Echo goes off before the question shows: a key typed the moment it appears must not be echoed.
      io.setRawMode?.(true);
      try {
        await io.write(question);
        // What is typed with echo off is a secret (a key, a token): never printed back, even in an error.
        const value = await readHidden();
        registerSecret(value);
        return value;
      } finally {
        io.setRawMode?.(false);
        // Enter was not echoed either: end the prompt's line.
        await io.write("\n");
      }
    },

    async rest(maxBytes) {
      while (await more()) {
        if (size > maxBytes)
          throw UsageError(`setup: stdin holds more than ${maxBytes / 1024} KiB; that is not an API key`);
      }
      const text = buffer;
      buffer = "";
      // A piped key, as `hidden` reads a typed one.
      registerSecret(text);
      return text;
    },
  };

  /**
   * Raw-mode keys: Enter ends the line, Backspace erases, Ctrl-C cancels, Ctrl-D ends (or cancels an empty
   * line). A paste arrives as one chunk; whatever follows the Enter stays buffered for the next question.
   */
  async function readHidden(): Promise<string> {
    let value = "";
    for (;;) {
      const chars = [...buffer];
      for (let i = 0; i < chars.length; i++) {
        const ch = chars[i]!;
        if (ch === "\r" || ch === "\n" || (ch === "\u0004" && value)) {
          const skip = ch === "\r" && chars[i + 1] === "\n" ? 2 : 1;
          buffer = chars.slice(i + skip).join("");
          return value;
        }
        if (ch === "\u0003" || ch === "\u0004") throw SetupCancelled("was cancelled");
        if (ch === "\u007f" || ch === "\b") value = value.slice(0, -1);
        else if (ch >= " ") value += ch;
      }
      buffer = "";
      if (!(await more())) {
        if (value) return value;
        throw SetupCancelled("was cancelled: the input ended before every question was answered");
      }
    }
  }
}
