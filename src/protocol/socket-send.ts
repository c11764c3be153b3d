import * as v from "valibot";
import { FermixError, fromSerialized } from "../error.ts";
import { unixFetch } from "../runtime/http.ts";
import { MAX_ASK_BODY_BYTES } from "./ask-parts.ts";
import { ErrorBody, PROTOCOL_HEADER, PROTOCOL_VERSION } from "./ask-schemas.ts";

/** Raised when nothing answers on the socket; the CLI maps it to exit 3. */
export const NOT_RUNNING = "not_running";

/** One request to the daemon: its answer when it is ok (or a stream), else the error it carries, thrown. */
export type SocketSend = (path: string, init?: RequestInit) => Promise<Response>;

/**
 * Requests over the daemon's socket with the protocol header set. Nothing listening is `not_running`; an error
 * answer becomes the FermixError it serialises. It needs ask's schemas only, so `fermix ask` can use it alone.
 */
export function socketSender(socketPath: string): SocketSend {
  const socketFetch = unixFetch(socketPath);
  return async (path, init = {}) => {
    let response: Response;
    try {
      response = await socketFetch(`http://fermix${path}`, {
        ...init,
        headers: { [PROTOCOL_HEADER]: String(PROTOCOL_VERSION), ...(init.headers as Record<string, string>) },
      });
    } catch (err) {
      if ((err as Error)?.name === "AbortError") throw err;
      throw new FermixError(NOT_RUNNING, "not running", { socket: socketPath });
    }
    if (!response.ok && !response.headers.get("content-type")?.includes("text/event-stream")) {
      throw await errorFrom(response);
    }
    return response;
  };
}

async function errorFrom(response: Response): Promise<FermixError> {
  // The server refuses an oversized body before any route sees it, so the answer carries no error body of ours.
  if (response.status === 413) {
    return new FermixError(
      "request_too_large",
      `the request is larger than the daemon takes (${Math.floor(MAX_ASK_BODY_BYTES / 1024 / 1024)} MiB); attach fewer or smaller files`,
      { limit: MAX_ASK_BODY_BYTES },
    );
  }
  const body = await response.json().catch(() => undefined);
  const parsed = v.safeParse(v.object({ error: ErrorBody }), body);
  if (parsed.success) return fromSerialized(parsed.output.error);
  return new FermixError("protocol_error", `the daemon answered HTTP ${response.status}`);
}
