import * as v from "valibot";

/** One `fermix ask --attach` file at most; the vision APIs and Anthropic's PDF support all take this much. */
export const MAX_ATTACHMENT_BYTES = 20 * 1024 * 1024;
/** All of one ask's attachments together: four of the largest. The daemon's body limit is sized from it. */
export const MAX_ATTACHMENTS_BYTES = 4 * MAX_ATTACHMENT_BYTES;
/** What `--attach` takes, by the type its bytes show (never its name): pictures for a vision model, and PDFs. */
export const ATTACHMENT_TYPES = ["image/png", "image/jpeg", "image/gif", "image/webp", "application/pdf"] as const;

/** base64 grows 4 bytes for every 3. */
const base64Length = (bytes: number) => Math.ceil(bytes / 3) * 4;

/** An attached file as it crosses the socket: its name (for the model and the history placeholder), type, bytes. */
export const AskAttachment = v.strictObject({
  name: v.pipe(v.string(), v.minLength(1), v.maxLength(255)),
  mime: v.picklist(ATTACHMENT_TYPES),
  data: v.pipe(
    v.string(),
    v.minLength(1, "an attachment must not be empty"),
    v.maxLength(base64Length(MAX_ATTACHMENT_BYTES), `an attachment is over ${MAX_ATTACHMENT_BYTES / 1024 / 1024} MiB`),
    v.regex(/^[A-Za-z0-9+/]*={0,2}$/, "attachment data must be base64"),
  ),
});
export type AskAttachment = v.InferOutput<typeof AskAttachment>;

export const AskAttachments = v.pipe(
  v.array(AskAttachment),
  v.check(
    (list) => list.reduce((sum, a) => sum + a.data.length, 0) <= base64Length(MAX_ATTACHMENTS_BYTES),
    `the attachments together are over ${MAX_ATTACHMENTS_BYTES / 1024 / 1024} MiB`,
  ),
);

/**
 * The largest request body the daemon reads: the attachments' base64, the 4 MiB of text (JSON may escape each
 * character of it up to six-fold), and room for the rest.
 */
export const MAX_ASK_BODY_BYTES = base64Length(MAX_ATTACHMENTS_BYTES) + 6 * 4 * 1024 * 1024 + 1024 * 1024;
