import { createParser } from "eventsource-parser";
import * as v from "valibot";
import { FermixError, fromSerialized } from "../error.ts";
import { type ApprovalRequest, AskDone, AskNotice, type AskRequest, AskText, ErrorBody } from "./ask-schemas.ts";
import type { SocketSend } from "./socket-send.ts";

export type AskCallbacks = {
  signal?: AbortSignal;
  onText?: (delta: string) => void;
  onNotice?: (text: string, approval?: ApprovalRequest) => void;
};

/**
 * `POST /v1/ask` and its SSE stream: text deltas and notices as they come, then the one `done` (returned) or
 * `error` (thrown). Apart from client.ts so that `fermix ask` loads ask's part of the protocol alone.
 */
export async function askOverSocket(send: SocketSend, request: AskRequest, opts: AskCallbacks = {}): Promise<AskDone> {
  const response = await send("/v1/ask", {
    method: "POST",
    headers: { "content-type": "application/json", accept: "text/event-stream" },
    body: JSON.stringify(request),
    signal: opts.signal,
  });
  let done: AskDone | undefined;
  let failure: FermixError | undefined;
  const parser = createParser({
    onEvent(event) {
      const data = JSON.parse(event.data);
      if (event.event === "text") opts.onText?.(v.parse(AskText, data).delta);
      else if (event.event === "notice") {
        const notice = v.parse(AskNotice, data);
        opts.onNotice?.(notice.text, notice.approval);
      } else if (event.event === "done") done = v.parse(AskDone, data);
      else if (event.event === "error") failure = fromSerialized(v.parse(ErrorBody, data));
    },
  });
  const reader = response.body!.pipeThrough(new TextDecoderStream()).getReader();
  while (true) {
    const { done: eof, value } = await reader.read();
    if (eof) break;
    parser.feed(value);
  }
  if (failure) throw failure;
  if (!done) throw new FermixError("protocol_error", "the daemon closed the answer before it finished");
  return done;
}
