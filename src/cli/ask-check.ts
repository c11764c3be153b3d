import * as v from "valibot";
import { AskRequest } from "../protocol/ask-schemas.ts";
import { UsageError } from "./exit.ts";

/**
 * An ask's request, checked against the protocol's schema: what is wrong is a usage error naming the option
 * (`--session` for the session id). Apart from ask-run.ts because a daemon-up ask runs it only when the daemon
 * refused its request (the daemon checks every request against the same schema first).
 */
export function checkRequest(draft: AskRequest): AskRequest {
  const parsed = v.safeParse(AskRequest, draft);
  if (!parsed.success) {
    const issue = parsed.issues[0];
    const field = issue.path?.map((p) => String(p.key)).join(".");
    throw UsageError(`ask: ${field === "session_id" ? "--session" : (field ?? "input")}: ${issue.message}`);
  }
  return parsed.output;
}
