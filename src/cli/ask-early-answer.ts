import type { EarlyAsk } from "./ask-early.ts";
import { type AnswerShape, answerPrinter, printAnswer, printAskFailure } from "./ask-output.ts";
import { probeDescriptor, useStartedStats } from "./stdio-probe.ts";

/**
 * Finishes the plain ask src/main.ts sent (cli/ask-early.ts) without the command tree: the daemon's answer read and
 * printed as ask's run prints it (cli/ask-output.ts), with the same exit code. Walking the tree to `ask`, parsing its
 * arguments again and loading its run cost a daemon-up client ~3.5 ms of CPU after its request had gone (issue 31,
 * measured on the compiled client: 11.6 against 8.25 ms, `--version` 6.9), which 200 clients at once pay 200 times.
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
  // As cli/stdin.ts's isCharacterDevice(1): a terminal (or /dev/null, where streaming is harmless) streams.
  const shape: AnswerShape = { json: false, usage: false, streaming: (await probeDescriptor(1)) === "character" };
  const printer = answerPrinter(shape);
  try {
    const { readAskAnswer } = await reading;
    return await printAnswer(await readAskAnswer(response, printer.callbacks), shape, printer);
  } catch (err) {
    return printAskFailure(err, shape, printer);
  }
}
