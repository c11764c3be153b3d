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
  // src/cli/ask-early.ts posts the same request itself (it says why).
  const responding = send("/v1/ask", {
    method: "POST",
    headers: { "content-type": "application/json", accept: "text/event-stream" },
    body: JSON.stringify(request),
    signal: opts.signal,
  });
  return readAsk(responding, opts);
}

/** The daemon's answer to an ask already sent, read to its end. */
export async function readAsk(responding: Promise<Response>, opts: AskCallbacks = {}): Promise<AskDone> {
  const [{ readAskAnswer }, response] = await Promise.all([import("./ask-answer.ts"), responding]);
  return readAskAnswer(response, opts);
}
