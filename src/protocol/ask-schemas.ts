import * as v from "valibot";
import { AskAttachments } from "./ask-parts.ts";

/**
 * `POST /v1/ask`'s request, as the daemon checks it (and `fermix ask` before an in-process turn, or when the daemon
 * refused its request: src/cli/ask-check.ts). Its answer's schemas are in ask-answer-schemas.ts; both are apart from
 * protocol/schemas.ts (which re-exports them) so that `fermix ask` builds only what it uses, after its request left.
 */
export { MIN_CLIENT_PROTOCOL, PROTOCOL_HEADER, PROTOCOL_VERSION } from "./protocol-version.ts";

export const SessionId = v.pipe(
  v.string(),
  v.regex(/^[A-Za-z0-9._:-]{1,128}$/, "a session id of letters, digits, '.', '_', ':' or '-' (at most 128)"),
);

export const AskRequest = v.strictObject({
  text: v.pipe(
    v.string(),
    v.minLength(1, "text must not be empty"),
    v.maxLength(4 * 1024 * 1024, "text is over 4 MiB"),
  ),
  session_id: v.optional(SessionId),
  cwd: v.optional(v.string()),
  provider: v.optional(v.string()),
  model: v.optional(v.pipe(v.string(), v.minLength(1))),
  timeout_ms: v.optional(v.pipe(v.number(), v.integer(), v.minValue(1))),
  /** `ask --attach`: pictures and PDFs, typed by their bytes (protocol/ask-parts.ts holds the limits). */
  attachments: v.optional(AskAttachments),
  /** `ask --system`: appended to the system prompt for this turn only. */
  system: v.optional(v.pipe(v.string(), v.maxLength(256 * 1024, "--system is over 256 KiB"))),
  /** `ask --tools a,b` / `--no-tools` (empty): only these built-ins are offered. */
  tools: v.optional(v.array(v.pipe(v.string(), v.minLength(1)))),
  /** `ask --schema`: the JSON Schema the answer must match, already resolved by the CLI (sent as structured output). */
  schema: v.optional(v.record(v.string(), v.unknown())),
});
export type AskRequest = v.InferOutput<typeof AskRequest>;
