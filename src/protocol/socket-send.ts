import { FermixError } from "../error.ts";
import { failedToConnect } from "../runtime/connect-failure.ts";
import { PROTOCOL_HEADER, PROTOCOL_VERSION } from "./protocol-version.ts";

/** Raised when nothing answers on the socket; the CLI maps it to exit 3. */
export const NOT_RUNNING = "not_running";

/** One request to the daemon: its answer when it is ok (or a stream), else the error it carries, thrown. */
export type SocketSend = (path: string, init?: RequestInit) => Promise<Response>;

/**
 * Requests over the daemon's socket with the protocol header set. Nothing listening is `not_running`; an error
 * answer becomes the FermixError it serialises. It builds no schema until an error answer needs one
 * (protocol/error-answer.ts), so `fermix ask` sends its request without any.
 */
export function socketSender(socketPath: string): SocketSend {
  // runtime/http.ts loads with the first request: an ask src/cli/ask-early.ts already sent never needs it.
  let socketFetch: ReturnType<typeof import("../runtime/http.ts").unixFetch> | undefined;
  return async (path, init = {}) => {
    socketFetch ??= (await import("../runtime/http.ts")).unixFetch(socketPath);
    return answerFrom(
      socketPath,
      socketFetch(`http://fermix${path}`, {
        ...init,
        headers: { [PROTOCOL_HEADER]: String(PROTOCOL_VERSION), ...(init.headers as Record<string, string>) },
      }),
    );
  };
}

/**
 * The daemon's answer to a request fetch made to `socketPath` (here, or src/cli/ask-early.ts's): nothing listening
 * is `not_running`, an error answer the FermixError it carries, thrown. A connection the daemon accepted and closed
 * before its answer's head is not `not_running`: the request may be under way there (runtime/connect-failure.ts).
 */
export async function answerFrom(socketPath: string, responding: Promise<Response>): Promise<Response> {
  let response: Response;
  try {
    response = await responding;
  } catch (err) {
    if ((err as Error)?.name === "AbortError") throw err;
    if (failedToConnect(err)) throw new FermixError(NOT_RUNNING, "not running", { socket: socketPath });
    throw new FermixError(
      "protocol_error",
      "the daemon closed the connection before it answered; `fermix status` says whether it still runs, `fermix logs` why not",
    );
  }
  if (!response.ok && !response.headers.get("content-type")?.includes("text/event-stream")) {
    throw await (await import("./error-answer.ts")).errorFrom(response);
  }
  return response;
}
