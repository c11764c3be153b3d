import type { AskDone } from "../protocol/ask-answer-schemas.ts";
import type { AskCallbacks } from "../protocol/ask-client.ts";
import { NOT_RUNNING } from "../protocol/socket-send.ts";
import { printAfterAnswer } from "./ask-script.ts";
import { asFermixError, exitCodeFor } from "./exit.ts";
import { writeErr, writeOut } from "./output.ts";

/*
 * How `fermix ask` prints what it is answered, whichever way the answer came: ask's run (cli/ask-run.ts), and the
 * plain ask src/main.ts sent and finishes itself (cli/ask-early-answer.ts). One place, so the two cannot drift.
 */

/** How an answer is shown: --json, -x/--extract-last, --usage; streaming when stdout is a terminal and neither. */
export type AnswerShape = {
  json: boolean;
  extract?: "first" | "last";
  usage: boolean;
  streaming: boolean;
};

/** The callbacks that print an answer as it comes, and whether any of it went out (printed once at the end). */
export type AnswerPrinter = { callbacks: Required<Pick<AskCallbacks, "onNotice">> & AskCallbacks; printed(): boolean };

export function answerPrinter(shape: Pick<AnswerShape, "streaming">): AnswerPrinter {
  let printed = false;
  return {
    callbacks: {
      onText: shape.streaming
        ? (delta: string) => {
            printed = true;
            void writeOut(delta);
          }
        : undefined,
      // Approval requests and other notices are for the person, never part of the answer on stdout.
      onNotice: (text: string) => void writeErr(`${text}\n`),
    },
    printed: () => printed,
  };
}

/** The finished answer on stdout, its notes on stderr; the exit code. */
export async function printAnswer(done: AskDone, shape: AnswerShape, printer: AnswerPrinter): Promise<number> {
  if (shape.json) {
    const truncated = done.truncated ? { truncated: true } : {};
    const usage = { usage: done.usage ?? (await import("./_ask-usage.ts")).NO_USAGE };
    const out = { status: "ok", response: done.response, session_id: done.session_id, ...truncated, ...usage };
    await writeOut(`${JSON.stringify(out)}\n`);
  } else if (shape.streaming && printer.printed()) await writeOut("\n");
  else if (!shape.extract) await writeOut(`${done.response}\n`);
  // The answer stays whole on stdout; that it is cut short is said beside it, never silently.
  if (done.truncated) await writeErr(`${truncationNote(done)}\n`);
  return printAfterAnswer(done, { extract: shape.extract, usage: shape.usage });
}

/** An ask that failed: said on stdout as one object with --json, else on stderr; the exit code. */
export async function printAskFailure(
  err: unknown,
  shape: Pick<AnswerShape, "json">,
  printer?: AnswerPrinter,
): Promise<number> {
  const error = asFermixError(err);
  // Loaded with the first error, as cli/exit.ts's reportError loads it.
  const { redact } = await import("../observability/redact.ts");
  if (printer?.printed()) await writeOut("\n");
  if (shape.json) {
    const shown = error.code === NOT_RUNNING ? NOT_RUNNING : redact(error.message);
    await writeOut(`${JSON.stringify({ status: "error", error: shown, code: error.code })}\n`);
  } else {
    await writeErr(`fermix: ${redact(error.message)}\n`);
  }
  return exitCodeFor(error);
}

/** What a cut answer means and how to get the rest: the session continues where the answer stopped. */
export function truncationNote(done: Pick<AskDone, "provider" | "model" | "session_id">): string {
  return (
    `fermix: the answer was cut at the model's output limit (${done.provider} ${done.model}); ` +
    `for the rest, ask it to continue: fermix ask -s ${done.session_id} "continue" (or ask for a shorter answer)`
  );
}
