import { createParser } from "eventsource-parser";
import { FermixError, fromSerialized } from "../error.ts";
import { checkDone, checkError, checkNotice, checkText } from "./ask-answer-check.ts";
import type { AskDone } from "./ask-answer-schemas.ts";
import type { AskCallbacks } from "./ask-client.ts";

/**
 * `POST /v1/ask`'s SSE answer, read: text deltas and notices as they come, then the one `done` (returned) or `error`
 * (thrown). Every event is checked against its schema before anything of it is used (protocol/ask-answer-check.ts).
 */
export async function readAskAnswer(response: Response, opts: AskCallbacks): Promise<AskDone> {
  let done: AskDone | undefined;
  let failure: FermixError | undefined;
  const parser = createParser({
    onEvent(event) {
      const data = JSON.parse(event.data);
      if (event.event === "text") opts.onText?.(checkText(data).delta);
      else if (event.event === "notice") {
        const notice = checkNotice(data);
        opts.onNotice?.(notice.text, notice.approval);
      } else if (event.event === "done") done = checkDone(data);
      else if (event.event === "error") failure = fromSerialized(checkError(data));
    },
  });
  // Read as it arrives (a notice may ask the person something while the turn waits). A decoder rather than a
  // TextDecoderStream, whose pipe is much of the runtime's own JavaScript run for the first time (issue 31).
  const reader = response.body!.getReader();
  const decoder = new TextDecoder();
  while (true) {
    let chunk: Awaited<ReturnType<typeof reader.read>>;
    try {
      chunk = await reader.read();
    } catch (err) {
      // The connection dropped mid-answer (the daemon stopped or crashed): said as the end it is, not as the
      // runtime's socket error. The owner's own abort (Ctrl-C, --timeout) stays what it was.
      if ((err as Error)?.name === "AbortError") throw err;
      throw unfinished();
    }
    if (chunk.done) break;
    parser.feed(decoder.decode(chunk.value, { stream: true }));
  }
  if (failure) throw failure;
  if (!done) throw unfinished();
  return done;
}

function unfinished(): FermixError {
  return new FermixError(
    "protocol_error",
    "the daemon closed the answer before it finished; `fermix status` says whether it still runs, `fermix logs` why not",
  );
}
