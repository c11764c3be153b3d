import * as v from "valibot";
import type { InboundAttachment, InboundMessage } from "../channel.ts";

/** Inbound files past this are refused before any download (the gateway's own caps are lower still). */
export const MAX_INBOUND_FILE_BYTES = 100 * 1024 * 1024;

/*
 * The part of an Events API event the adapter reads, checked at the edge. Objects are open (Slack adds fields);
 * an event that does not fit is skipped, never half-read.
 */
const SlackFile = v.object({
  id: v.string(),
  name: v.optional(v.nullable(v.string())),
  mimetype: v.optional(v.string()),
  filetype: v.optional(v.string()),
  subtype: v.optional(v.string()),
  size: v.optional(v.number()),
  mode: v.optional(v.string()),
  url_private: v.optional(v.string()),
  url_private_download: v.optional(v.string()),
});
type SlackFile = v.InferOutput<typeof SlackFile>;

const Event = v.object({
  type: v.string(),
  subtype: v.optional(v.string()),
  channel: v.optional(v.string()),
  channel_type: v.optional(v.string()),
  user: v.optional(v.string()),
  bot_id: v.optional(v.string()),
  text: v.optional(v.string()),
  ts: v.optional(v.string()),
  thread_ts: v.optional(v.string()),
  files: v.optional(v.array(SlackFile)),
});

/** A message with files still counts as the user's own message; every other subtype is an edit, a join, a bot… */
const USER_SUBTYPES = new Set([undefined, "file_share", "thread_broadcast"]);

export type FileDownloader = (url: string, maxBytes: number) => Promise<Uint8Array>;

/**
 * One event → the message the gateway reads, or undefined: a DM to the app (message.im, a user's own message) or an
 * app mention in a channel, which is answered in its thread (thread_ts, else the mention's ts, so each mention at
 * the top level starts its own conversation). Bots — fermix itself included — are never answered. The app's own
 * `<@U…>` is taken out of the text; Slack's other markup (links, user and channel references, escapes) is read back
 * as plain text.
 */
export function parseEvent(
  raw: unknown,
  botUserId: string | undefined,
  download: FileDownloader,
): InboundMessage | undefined {
  const parsed = v.safeParse(Event, raw);
  if (!parsed.success) return undefined;
  const event = parsed.output;
  if (!event.channel || !event.user || !event.ts || event.bot_id || event.user === botUserId) return undefined;
  const isDm = event.type === "message" && event.channel_type === "im" && USER_SUBTYPES.has(event.subtype);
  const isMention = event.type === "app_mention" && !event.subtype;
  if (!isDm && !isMention) return undefined;
  return {
    id: event.ts,
    channel: "slack",
    chatId: event.channel,
    ...(isMention ? { thread: event.thread_ts ?? event.ts } : {}),
    senderId: event.user,
    text: plainText(event.text ?? "", botUserId),
    attachments: (event.files ?? []).flatMap((file) => attachment(file, download)),
    chatType: isDm ? "private" : "group",
    // Slack's ts is the send time in seconds; the event itself revives the message after a restart.
    ...(Number.isFinite(Number(event.ts)) ? { sentAt: Math.round(Number(event.ts) * 1000) } : {}),
    raw,
  };
}

/** The (channel, ts) that names a message on Slack: the dedupe key, the same for a retry and for both events. */
export function messageKey(raw: unknown): string | undefined {
  const event = raw as { channel?: unknown; ts?: unknown } | undefined;
  return typeof event?.channel === "string" && typeof event.ts === "string"
    ? `${event.channel}:${event.ts}`
    : undefined;
}

/** Slack's message markup → what the person wrote: `<url|label>` → "label (url)", `<@U1>` → "@U1", entities decoded. */
export function plainText(text: string, botUserId: string | undefined): string {
  const withoutBot = botUserId ? text.replaceAll(`<@${botUserId}>`, "") : text.replace(/^\s*<@[UW][A-Z0-9]+>/, "");
  return withoutBot
    .replace(/<((?:https?|mailto):[^|>]+)\|([^>]+)>/g, (_, url: string, label: string) =>
      label === url.replace(/^mailto:/, "") ? label : `${label} (${url})`,
    )
    .replace(/<((?:https?|mailto):[^>]+)>/g, (_, url: string) => url.replace(/^mailto:/, ""))
    .replace(/<@([UW][A-Z0-9]+)(?:\|([^>]+))?>/g, (_, id: string, name?: string) => `@${name ?? id}`)
    .replace(/<#(C[A-Z0-9]+)(?:\|([^>]*))?>/g, (_, id: string, name?: string) => `#${name || id}`)
    .replace(/<!(here|channel|everyone)(?:\|[^>]*)?>/g, "@$1")
    .replace(/<!subteam\^[A-Z0-9]+(?:\|([^>]+))?>/g, (_, name?: string) => name ?? "@group")
    .replace(/&lt;/g, "<")
    .replace(/&gt;/g, ">")
    .replace(/&amp;/g, "&")
    .trim();
}

/**
 * A shared file as an attachment: pictures for the model, audio (and Slack's recorded audio clips) transcribed,
 * the rest documents. A file the workspace hides (over the free plan's limit) or that has no private URL is left out.
 */
function attachment(file: SlackFile, download: FileDownloader): InboundAttachment[] {
  const url = file.url_private_download ?? file.url_private;
  if (!url || file.mode === "tombstone" || file.mode === "hidden_by_limit") return [];
  const mime = (file.mimetype ?? "application/octet-stream").toLowerCase();
  const audio = mime.startsWith("audio/") || file.subtype === "slack_audio";
  const kind = audio ? "audio" : mime.startsWith("image/") ? "image" : mime.startsWith("video/") ? "video" : "document";
  return [
    {
      kind,
      mime,
      ...(file.size !== undefined ? { size: file.size } : {}),
      ...(file.name ? { filename: file.name } : {}),
      ...(audio ? { transcribe: true } : {}),
      download: (maxBytes) => download(url, Math.min(maxBytes, MAX_INBOUND_FILE_BYTES)),
    },
  ];
}
