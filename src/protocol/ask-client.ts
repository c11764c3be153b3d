import type { ApprovalRequest, AskDone, AskRequest } from "./ask-schemas.ts";
import type { SocketSend } from "./socket-send.ts";

export type AskCallbacks = {
  signal?: AbortSignal;
  onText?: (delta: string) => void;
  onNotice?: (text: string, approval?: ApprovalRequest) => void;
};

/**
 * `POST /v1/ask` and its SSE answer (protocol/ask-answer.ts). Apart from client.ts so that `fermix ask` loads ask's
 * part of the protocol alone.
 *
 * The request goes out before any schema is built: the answer's reader and its schemas load while the daemon works
 * on the turn, when the client would otherwise wait. `whileSent` runs in that time too (`fermix ask` checks its own
 * request there, issue 31); when it throws, the request is cancelled and its error is the one thrown. The daemon
 * checks every request before it starts a turn, so a request cancelled this way has done nothing.
 */
export async function askOverSocket(
  send: SocketSend,
  request: AskRequest,
  opts: AskCallbacks & { whileSent?: () => Promise<unknown> } = {},
): Promise<AskDone> {
  const cancel = new AbortController();
  const responding = send("/v1/ask", {
    method: "POST",
    headers: { "content-type": "application/json", accept: "text/event-stream" },
    body: JSON.stringify(request),
    signal: opts.signal ? AbortSignal.any([opts.signal, cancel.signal]) : cancel.signal,
  });
  // Handled here, awaited below: a daemon that is not there must not be an unhandled rejection while `whileSent` runs.
  responding.catch(() => {});
  const reading = import("./ask-answer.ts");
  try {
    await opts.whileSent?.();
  } catch (err) {
    cancel.abort();
    throw err;
  }
  const [{ readAskAnswer }, response] = await Promise.all([reading, responding]);
  return readAskAnswer(response, opts);
}
