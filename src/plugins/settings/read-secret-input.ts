import { UsageError } from "../../cli/exit.ts";
import { registerSecret } from "../../config/secret-registry.ts";
import { FermixError } from "../../error.ts";
import { descriptorKind } from "../../runtime/files.ts";
import { stdinStream, writeStderr } from "../../runtime/stdio.ts";

/**
 * The secret for `fermix plugins auth set NAME`: piped in (`echo "$TOKEN" | fermix plugins auth set slack`)
 * or typed at a prompt that does not echo. Never from argv — a secret there lands in shell history and in
 * every local user's view of the process list. (`--stdin` changes nothing: stdin is the only source.)
 */
export type StdinKind = "tty" | "pipe" | "file" | "closed";
export type SecretInputIo = {
  stdinKind(): Promise<StdinKind>;
  readStdin(maxBytes: number): Promise<string>;
  /** Writes `prompt` to stderr and reads one line from the terminal without echoing it. */
  promptHidden(prompt: string): Promise<string>;
};

const MAX_SECRET_BYTES = 64 * 1024;

export async function readSecretInput(opts: {
  name: string;
  /** argv words after NAME; there must be none. */
  extra?: readonly string[];
  prompt?: string;
  io?: SecretInputIo;
}): Promise<string> {
  refuseSecretArgv(opts.name, opts.extra ?? []);
  const io = opts.io ?? terminalIo;
  const kind = await io.stdinKind();
  if (kind === "closed") throw UsageError(`stdin is closed; ${pipeHint(opts.name)}`);
  const raw =
    kind === "tty"
      ? await io.promptHidden(`${opts.prompt ?? `Secret for ${opts.name}`}: `)
      : await io.readStdin(MAX_SECRET_BYTES);
  // One trailing newline is what `echo` and an editor add; anything else is the user's and kept.
  const value = raw.replace(/\r?\n$/, "");
  if (!value.trim()) throw UsageError(`no secret was given for ${opts.name}; ${pipeHint(opts.name)}`);
  registerSecret(value);
  return value;
}

export function refuseSecretArgv(name: string, extra: readonly string[]) {
  const words = extra.filter((w) => w !== "--stdin");
  if (!words.length) return;
  // The refused words are not echoed back: they may well be the secret.
  throw UsageError(
    `fermix plugins auth set takes no value on the command line (secrets are read from stdin so they don't land in shell history); ${pipeHint(name)}`,
  );
}

function pipeHint(name: string): string {
  return `pipe it in: echo "$TOKEN" | fermix plugins auth set ${name} (or run it in a terminal to be prompted)`;
}

/**
 * Key handling for the hidden prompt, apart from the terminal so it can be tested: Enter ends the line,
 * Backspace erases, Ctrl-C cancels, Ctrl-D ends (or cancels an empty line). A pasted value arrives as
 * one chunk, possibly with its newline.
 */
export function hiddenLine() {
  let value = "";
  return {
    feed(chunk: string): "more" | "done" | "cancel" {
      for (const ch of chunk) {
        if (ch === "\r" || ch === "\n") return "done";
        if (ch === "\u0003") return "cancel";
        if (ch === "\u0004") return value ? "done" : "cancel";
        if (ch === "\u007f" || ch === "\b") value = value.slice(0, -1);
        else if (ch >= " ") value += ch;
      }
      return "more";
    },
    value: () => value,
  };
}

const terminalIo: SecretInputIo = {
  async stdinKind() {
    const { isatty } = await import("node:tty");
    if (isatty(0)) return "tty";
    try {
      return (await descriptorKind(0)) === "file" ? "file" : "pipe";
    } catch {
      return "closed";
    }
  },
  async readStdin(maxBytes) {
    const chunks: Uint8Array[] = [];
    let size = 0;
    for await (const chunk of stdinStream()) {
      size += chunk.byteLength;
      if (size > maxBytes) throw UsageError(`stdin holds more than ${maxBytes / 1024} KiB; that is not a secret`);
      chunks.push(chunk);
    }
    return new TextDecoder().decode(Buffer.concat(chunks));
  },
  promptHidden(prompt) {
    const stdin = process.stdin;
    const line = hiddenLine();
    return new Promise<string>((resolve, reject) => {
      const finish = (outcome: "done" | "cancel") => {
        stdin.off("data", onData);
        stdin.setRawMode(false);
        stdin.pause();
        void writeStderr("\n");
        if (outcome === "done") resolve(line.value());
        else reject(new FermixError("cancelled", "cancelled; nothing was stored"));
      };
      const onData = (data: Buffer) => {
        const outcome = line.feed(data.toString("utf8"));
        if (outcome !== "more") finish(outcome);
      };
      void writeStderr(prompt);
      stdin.setRawMode(true);
      stdin.on("data", onData);
      stdin.resume();
    });
  },
};
