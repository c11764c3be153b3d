import { extname } from "node:path";
import * as v from "valibot";
import type { AttachmentKind, InboundAttachment, InboundMessage } from "../channel.ts";
import { type Attachment, Message, USER_MESSAGE_TYPES, VOICE_MESSAGE_FLAG } from "./wire-types.ts";

/** Files are taken up to 10 MB each way (a bot's upload limit without boosts). */
export const MAX_DISCORD_FILE_BYTES = 10 * 1024 * 1024;

/** Fetches an attachment's bytes from its CDN URL, refusing past `maxBytes` (declared size first, then streamed). */
export type AttachmentFetcher = (url: string, declared: number | undefined, maxBytes: number) => Promise<Uint8Array>;

const MIME_BY_EXTENSION: Record<string, string> = {
  ".jpg": "image/jpeg",
  ".jpeg": "image/jpeg",
  ".png": "image/png",
  ".gif": "image/gif",
  ".webp": "image/webp",
  ".ogg": "audio/ogg",
  ".oga": "audio/ogg",
  ".mp3": "audio/mpeg",
  ".m4a": "audio/mp4",
  ".wav": "audio/wav",
  ".mp4": "video/mp4",
  ".mov": "video/quicktime",
  ".webm": "video/webm",
  ".pdf": "application/pdf",
  ".txt": "text/plain",
};

/**
 * One MESSAGE_CREATE → what the gateway reads, or undefined when fermix is not being addressed: only DMs (no
 * guild_id) and guild messages that mention the bot (in `mentions`, which a reply to the bot also fills, or as
 * `<@id>`/`<@!id>` in the text, which is stripped). Bots — fermix itself included — webhooks and system messages
 * are never answered. A thread is its own channel, so channel_id alone is the conversation.
 */
export function parseMessage(raw: unknown, botUserId: string, fetch: AttachmentFetcher): InboundMessage | undefined {
  const parsed = v.safeParse(Message, raw);
  if (!parsed.success) return undefined;
  const message = parsed.output;
  if (message.author.bot || message.webhook_id !== undefined || message.author.id === botUserId) return undefined;
  if (!USER_MESSAGE_TYPES.has(message.type)) return undefined;
  const mention = new RegExp(`<@!?${botUserId}>`, "g");
  const direct = message.guild_id === undefined;
  const mentioned = message.mentions.some((user) => user.id === botUserId) || mention.test(message.content);
  if (!direct && !mentioned) return undefined;
  const name = message.author.global_name ?? message.author.username;
  return {
    id: message.id,
    channel: "discord",
    chatId: message.channel_id,
    senderId: message.author.id,
    ...(name ? { senderName: name } : {}),
    text: message.content.replace(new RegExp(`<@!?${botUserId}>[ \\t]?`, "g"), "").trim(),
    attachments: message.attachments.map((a) => attachment(a, (message.flags & VOICE_MESSAGE_FLAG) !== 0, fetch)),
    chatType: direct ? "private" : "group",
    // The gateway event itself revives the message after a restart.
    raw,
  };
}

function attachment(file: Attachment, voiceMessage: boolean, fetch: AttachmentFetcher): InboundAttachment {
  const mime = (
    file.content_type?.split(";")[0]?.trim() ||
    MIME_BY_EXTENSION[extname(file.filename).toLowerCase()] ||
    "application/octet-stream"
  ).toLowerCase();
  const kind: AttachmentKind = voiceMessage
    ? "audio"
    : mime.startsWith("image/")
      ? "image"
      : mime.startsWith("audio/")
        ? "audio"
        : mime.startsWith("video/")
          ? "video"
          : "document";
  return {
    kind,
    mime: voiceMessage && kind === "audio" && !mime.startsWith("audio/") ? "audio/ogg" : mime,
    ...(file.size !== undefined ? { size: file.size } : {}),
    filename: file.filename,
    // Voice messages and audio files are speech to transcribe; a video is not read.
    ...(kind === "audio" ? { transcribe: true } : {}),
    download: (maxBytes) => fetch(file.url, file.size, Math.min(maxBytes, MAX_DISCORD_FILE_BYTES)),
  };
}
