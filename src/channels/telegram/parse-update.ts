import * as v from "valibot";
import type { InboundAttachment, InboundMessage } from "../channel.ts";
import { type CallbackQuery, type MediaFile, type Message, type PhotoSize, Update } from "./bot-api-types.ts";

/** The Bot API serves files up to 20 MB to bots; a larger one cannot even be asked for. */
export const MAX_BOT_DOWNLOAD_BYTES = 20 * 1024 * 1024;

/** Fetches a file's bytes by its file_id, refusing past `maxBytes` (the declared size first, then while reading). */
export type FileFetcher = (fileId: string, declaredSize: number | undefined, maxBytes: number) => Promise<Uint8Array>;

export type ParsedUpdate =
  | { kind: "message"; message: InboundMessage }
  /** A tap on a button that is not an approval (or under no reachable message): acknowledged, nothing else. */
  | { kind: "stray_tap"; callbackId: string }
  | { kind: "none" };

/** An Approve/Deny button's callback_data, as the gateway sets it: `grant:<token>` / `deny:<token>`. */
const TAP_DATA = /^(grant|deny):([A-Za-z0-9]{4,32})$/;

/**
 * One update → what the gateway reads: message and edited_message (text, or the caption), callback_query from the
 * Approve/Deny buttons (a synthetic `/confirm TOKEN` or `/deny TOKEN`, the sender being the tapper as Telegram
 * authenticates them). Everything else (channel posts, polls, joins) is none.
 */
export function parseUpdate(raw: unknown, fetchFile: FileFetcher): ParsedUpdate {
  const parsed = v.safeParse(Update, raw);
  if (!parsed.success) return { kind: "none" };
  const update = parsed.output;
  if (update.callback_query) return parseTap(update.callback_query);
  const message = update.message ?? update.edited_message;
  if (!message?.from) return { kind: "none" };
  return {
    kind: "message",
    message: {
      id: String(message.message_id),
      channel: "telegram",
      chatId: String(message.chat.id),
      ...threadOf(message),
      senderId: String(message.from.id),
      ...(senderName(message.from) ? { senderName: senderName(message.from) } : {}),
      text: message.text ?? message.caption ?? "",
      attachments: attachmentsOf(message, fetchFile),
      chatType: chatTypeOf(message.chat.type),
      ...(message.media_group_id ? { mediaGroupId: message.media_group_id } : {}),
      ...(typeof message.date === "number" ? { sentAt: message.date * 1000 } : {}),
      // One update, one delivery: an edit is a new update of the same message id.
      deliveryId: String(update.update_id),
      // The update itself: revived after a restart into the same message, its files fetched by file_id then.
      raw,
    },
  };
}

function parseTap(query: CallbackQuery): ParsedUpdate {
  const match = TAP_DATA.exec(query.data ?? "");
  if (!match || !query.message) return { kind: "stray_tap", callbackId: query.id };
  const [, verb, token] = match;
  return {
    kind: "message",
    message: {
      id: `callback-${query.id}`,
      channel: "telegram",
      chatId: String(query.message.chat.id),
      ...threadOf(query.message),
      senderId: String(query.from.id),
      ...(senderName(query.from) ? { senderName: senderName(query.from) } : {}),
      text: `/${verb === "grant" ? "confirm" : "deny"} ${token}`,
      attachments: [],
      chatType: chatTypeOf(query.message.chat.type),
      tap: { id: query.id, messageId: String(query.message.message_id) },
    },
  };
}

/**
 * A forum topic is its own conversation. message_thread_id is also set on replies in a plain group's reply
 * thread, where sending to it is refused ("message thread not found"), so only a topic message counts.
 */
function threadOf(message: { message_thread_id?: number; is_topic_message?: boolean }): { thread?: string } {
  return message.is_topic_message && message.message_thread_id !== undefined
    ? { thread: String(message.message_thread_id) }
    : {};
}

function senderName(user: { username?: string; first_name?: string }): string | undefined {
  return user.username ?? user.first_name;
}

function chatTypeOf(type: string): InboundMessage["chatType"] {
  if (type === "private") return "private";
  if (type === "channel") return "channel";
  return "group";
}

function attachmentsOf(message: Message, fetchFile: FileFetcher): InboundAttachment[] {
  const out: InboundAttachment[] = [];
  const photo = largestPhoto(message.photo);
  if (photo) out.push(attachment(photo, { kind: "image", mime: "image/jpeg" }, fetchFile));
  if (message.voice) {
    out.push(
      attachment(
        message.voice,
        { kind: "audio", mime: message.voice.mime_type ?? "audio/ogg", transcribe: true, filename: "voice.ogg" },
        fetchFile,
      ),
    );
  }
  if (message.audio) {
    out.push(
      attachment(
        message.audio,
        { kind: "audio", mime: message.audio.mime_type ?? "audio/mpeg", transcribe: true },
        fetchFile,
      ),
    );
  }
  if (message.video_note) {
    out.push(
      attachment(
        message.video_note,
        { kind: "video", mime: "video/mp4", transcribe: true, filename: "video-note.mp4" },
        fetchFile,
      ),
    );
  }
  if (message.video) {
    out.push(attachment(message.video, { kind: "video", mime: message.video.mime_type ?? "video/mp4" }, fetchFile));
  }
  if (message.document) {
    const mime = message.document.mime_type ?? "application/octet-stream";
    // A voice memo sent as a file is still speech; a picture sent uncompressed is still a picture.
    const kind = mime.startsWith("audio/") ? "audio" : mime.startsWith("image/") ? "image" : "document";
    out.push(
      attachment(message.document, { kind, mime, ...(kind === "audio" ? { transcribe: true } : {}) }, fetchFile),
    );
  }
  return out;
}

/** Telegram lists a photo's sizes smallest first; the largest the Bot API will still serve is taken. */
function largestPhoto(sizes: PhotoSize[] | undefined): PhotoSize | undefined {
  if (!sizes?.length) return undefined;
  const servable = sizes.filter((s) => s.file_size === undefined || s.file_size <= MAX_BOT_DOWNLOAD_BYTES);
  return servable.reduce<PhotoSize | undefined>(
    (best, size) => (!best || area(size) >= area(best) ? size : best),
    undefined,
  );
}

const area = (size: PhotoSize) => (size.width ?? 0) * (size.height ?? 0) || (size.file_size ?? 0);

function attachment(
  file: MediaFile | PhotoSize,
  shape: Pick<InboundAttachment, "kind" | "mime" | "transcribe" | "filename">,
  fetchFile: FileFetcher,
): InboundAttachment {
  const filename = "file_name" in file && file.file_name ? file.file_name : shape.filename;
  return {
    kind: shape.kind,
    mime: shape.mime,
    ...(file.file_size !== undefined ? { size: file.file_size } : {}),
    ...(filename ? { filename } : {}),
    ...(shape.transcribe ? { transcribe: true } : {}),
    download: (maxBytes) => fetchFile(file.file_id, file.file_size, Math.min(maxBytes, MAX_BOT_DOWNLOAD_BYTES)),
  };
}
