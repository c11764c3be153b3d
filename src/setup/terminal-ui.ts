import { type ConsolaReporter, createConsola, LogLevels } from "consola";
import { colors } from "consola/utils";
import { SetupCancelled, type SetupUi, type StatusKind } from "./prompt.ts";

/**
 * `fermix setup` on a terminal, through one consola instance: its prompt for choices and confirmations, its
 * types for status lines (✔ ok, ⚠ warn, ✖ fail, ℹ info) drawn by our reporter. Colour comes from consola/utils,
 * which turns it off for NO_COLOR, TERM=dumb or a stdout that is no terminal; the caller only builds this when
 * stdin and stdout are both terminals, so piped runs keep their plain words (run-setup.ts).
 *
 * The reporter is ours rather than consola's FancyReporter, which rewrites `backticks` and _underscores_ in a
 * message (paths, env names) and sends warnings to stderr, out of order with the rest of setup's output.
 */
export function createTerminalUi(write: (text: string) => Promise<void>): SetupUi {
  let written: Promise<void> = Promise.resolve();
  const reporter: ConsolaReporter = {
    log: ({ type, args }) => {
      const [icon, paint] = LOOK[type] ?? LOOK.info!;
      written = write(`${paint(icon)} ${args.map(String).join(" ")}\n`);
    },
  };
  // Status lines go through `write` (setup's ordered stdout); the prompt draws on the terminal directly.
  const consola = createConsola({ reporters: [reporter], level: LogLevels.info, throttle: 0 });
  const TYPE = { ok: "success", warn: "warn", fail: "fail", info: "info" } as const satisfies Record<
    StatusKind,
    string
  >;
  return {
    async choose(question, options, initial) {
      const picked = await consola.prompt(question, { type: "select", options, initial, cancel: "symbol" });
      if (typeof picked === "symbol") throw SetupCancelled("was cancelled");
      return picked;
    },
    async confirm(question, initial) {
      const answer = await consola.prompt(question, { type: "confirm", initial, cancel: "symbol" });
      if (typeof answer === "symbol") throw SetupCancelled("was cancelled");
      return answer;
    },
    async status(kind, text) {
      consola[TYPE[kind]]({ args: [text] });
      await written;
    },
  };
}

const LOOK: Record<string, [icon: string, paint: (s: string) => string]> = {
  success: ["✔", colors.green],
  warn: ["⚠", colors.yellow],
  fail: ["✖", colors.red],
  info: ["ℹ", colors.cyan],
};

/**
 * stdin as setup's Prompter reads it between consola's prompts. Under Bun, an async iterator opened on
 * process.stdin reads nothing once a prompt's readline has paused the stream, so each chunk is taken with a
 * "data" listener that is removed again, leaving stdin paused for the next prompt.
 */
export async function* terminalInput(stdin: NodeJS.ReadStream): AsyncGenerator<Uint8Array> {
  while (!stdin.readableEnded) {
    const chunk = await new Promise<Uint8Array | undefined>((resolve, reject) => {
      const done = (value: Uint8Array | undefined, err?: unknown) => {
        stdin.off("data", onData).off("end", onEnd).off("error", onError);
        stdin.pause();
        if (err) reject(err);
        else resolve(value);
      };
      const onData = (data: Uint8Array) => done(data);
      const onEnd = () => done(undefined);
      const onError = (err: unknown) => done(undefined, err);
      stdin.on("data", onData).once("end", onEnd).once("error", onError);
      stdin.resume();
    });
    if (chunk === undefined) return;
    yield chunk;
  }
}
