import * as v from "valibot";
import { AskAttachments, AskUsage } from "./ask-parts.ts";

/**
 * The part of the daemon's protocol that `fermix ask` speaks: `POST /v1/ask`'s request and its SSE events, and the
 * error body. It is apart from protocol/schemas.ts (which re-exports it) so that the client of one ask evaluates
 * these few schemas, not the whole protocol's; and the client loads it only once its request is on its way
 * (protocol/ask-client.ts), so that not even these stand before the request.
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

export const ErrorBody = v.object({
  code: v.string(),
  message: v.string(),
  data: v.optional(v.record(v.string(), v.unknown()), {}),
});
export type ErrorBody = v.InferOutput<typeof ErrorBody>;

export const AskDone = v.object({
  response: v.string(),
  session_id: v.string(),
  provider: v.string(),
  model: v.string(),
  /** The answer stopped at the model's output limit (absent from an older daemon: not known to be cut). */
  truncated: v.optional(v.boolean()),
  /** The turn's tokens, summed over its model calls (absent from an older daemon). */
  usage: v.optional(AskUsage),
});
export type AskDone = v.InferOutput<typeof AskDone>;

/**
 * SSE event names of `POST /v1/ask`: `text` (a delta) and `notice` (a message for the owner that does
 * not come from the model, such as an approval request), then exactly one `done` or `error`.
 */
export const AskText = v.object({ delta: v.string() });
/**
 * An approval the owner is asked for, beside its notice's text, so an interactive client can ask it inline
 * (`fermix chat`: allow? [y/N]) instead of showing the `/confirm TOKEN` line. `kind` is a plain string: a kind a
 * client does not know falls back to the text. Absent from an older daemon; an older client ignores it.
 */
export const ApprovalRequest = v.object({ kind: v.string(), path: v.string(), reason: v.string(), token: v.string() });
export type ApprovalRequest = v.InferOutput<typeof ApprovalRequest>;
export const AskNotice = v.object({ text: v.string(), approval: v.optional(ApprovalRequest) });
