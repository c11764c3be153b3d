import * as v from "valibot";
import { FermixError, fromSerialized } from "../error.ts";
import { ErrorBody } from "./ask-answer-schemas.ts";
import { MAX_ASK_BODY_BYTES } from "./ask-parts.ts";

/** The FermixError a daemon's error answer carries; loaded by socket-send.ts only when an answer is not ok. */
export async function errorFrom(response: Response): Promise<FermixError> {
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
