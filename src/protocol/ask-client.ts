import type { ApprovalRequest, AskDone } from "./ask-answer-schemas.ts";
import type { AskRequest } from "./ask-schemas.ts";
import type { SocketSend } from "./socket-send.ts";

export type AskCallbacks = {
  signal?: AbortSignal;
  onText?: (delta: string) => void;
  onNotice?: (text: string, approval?: ApprovalRequest) => void;
};

/**
 * `POST /v1/ask` and its SSE answer (protocol/ask-answer.ts). Apart from client.ts so that `fermix ask` loads ask's
 * part of the protocol alone. The request goes out before any schema is built: the answer's reader and its schemas
 * load while the daemon works on the turn, when the client would otherwise wait (issue 31).
 */
export async function askOverSocket(send: SocketSend, request: AskRequest, opts: AskCallbacks = {}): Promise<AskDone> {
  return readAsk(sendAsk(send, request, opts.signal), opts);
}

/** The request alone: the daemon's answer, a stream, when it arrives (src/cli/ask-early.ts sends it this way). */
export function sendAsk(send: SocketSend, request: AskRequest, signal?: AbortSignal): Promise<Response> {
  return send("/v1/ask", {
    method: "POST",
    headers: { "content-type": "application/json", accept: "text/event-stream" },
    body: JSON.stringify(request),
    signal,
  });
}

/** The answer to a request `sendAsk` sent, read to its end. */
export async function readAsk(responding: Promise<Response>, opts: AskCallbacks = {}): Promise<AskDone> {
  const [{ readAskAnswer }, response] = await Promise.all([import("./ask-answer.ts"), responding]);
  return readAskAnswer(response, opts);
}
