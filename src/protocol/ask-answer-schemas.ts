import * as v from "valibot";

/**
 * What the daemon answers `POST /v1/ask` with: its SSE events and the error body every route shares. Apart from the
 * request's schemas (ask-schemas.ts) so that a daemon-up `fermix ask` builds these few alone, while the daemon works
 * on its turn (protocol/ask-client.ts).
 */

/** A turn's tokens summed over its model calls; cached and reasoning are 0 where no wire reported them. */
export const AskUsage = v.object({
  input_tokens: v.number(),
  cached_input_tokens: v.number(),
  output_tokens: v.number(),
  reasoning_tokens: v.number(),
});
export type AskUsage = v.InferOutput<typeof AskUsage>;

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
