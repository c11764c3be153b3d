import type { EarlyAsk } from "./ask-early.ts";
import { type AnswerShape, answerPrinter, printAnswer, printAskFailure } from "./ask-output.ts";
import { isCharacterDevice } from "./stdin.ts";
import { useStartedStats } from "./stdio-probe.ts";

/**
 * Finishes the plain ask src/main.ts sent (cli/ask-early.ts) without the command tree: the daemon's answer read and
 * printed as ask's run prints it (cli/ask-output.ts), with the same exit code. Walking the tree to `ask`, parsing its
 * arguments again and loading its run cost a daemon-up client ~0.85 ms of CPU after its request had gone (issue 31,
 * fresh copies of both builds against one daemon: 8.52 and 8.34 against 7.62 and 7.52 ms), which 200 clients at once
 * pay 200 times (bench/fanout: 1.49x and 1.33x before, 1.17x and 1.24x after).
 *
 * Undefined when the answer is not an event stream: no connection (ask's run then turns to the in-process turn, or
 * exit 3 with --daemon), or an error answer (whose `invalid_request` ask's run explains by its own check). Nothing of
 * such an answer is read here, so ask's run adopts the same request and reads it whole.
 */
export async function finishEarlyAsk(early: EarlyAsk): Promise<number | undefined> {
  if (!early.plain) return undefined;
  // The reader (the SSE parser and the answer's schemas) loads while the daemon works on the turn.
  const reading = import("../protocol/ask-answer.ts");
  let response: Response;
  try {
    response = await early.plain.responding;
  } catch {
    return undefined;
  }
  if (!response.ok || !response.headers.get("content-type")?.includes("text/event-stream")) return undefined;
  useStartedStats(early.stdio);
  // As ask's run decides it: a terminal (or /dev/null, where streaming is harmless) streams.
  const shape: AnswerShape = { json: false, usage: false, streaming: await isCharacterDevice(1) };
  const printer = answerPrinter(shape);
  try {
    const { readAskAnswer } = await reading;
    return await printAnswer(await readAskAnswer(response, printer.callbacks), shape, printer);
  } catch (err) {
    return printAskFailure(err, shape, printer);
  }
}
