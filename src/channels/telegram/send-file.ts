import type { OutboundFile } from "../../capabilities/channel-reply.ts";
import { defineError } from "../../error.ts";
import type { ChatTarget, SentMessage } from "../channel.ts";
import type { BotApi } from "./bot-api.ts";
import { safeCut } from "./html-nodes.ts";
import { chatParams, rateLimited } from "./send-reply.ts";

const MB = 1024 * 1024;

/** What the Bot API takes per upload: photos 10 MB, voice notes 1 MB (larger ones arrive as files), the rest 50 MB. */
export const TELEGRAM_UPLOAD_CAPS: Record<OutboundFile["kind"], number> = {
  image: 10 * MB,
  voice: 1 * MB,
  document: 50 * MB,
  audio: 50 * MB,
  video: 50 * MB,
};

const METHODS: Record<OutboundFile["kind"], { method: string; field: string }> = {
  image: { method: "sendPhoto", field: "photo" },
  voice: { method: "sendVoice", field: "voice" },
  document: { method: "sendDocument", field: "document" },
  audio: { method: "sendAudio", field: "audio" },
  video: { method: "sendVideo", field: "video" },
};

const NOUNS: Record<OutboundFile["kind"], string> = {
  image: "a photo",
  voice: "a voice note",
  document: "a document",
  audio: "an audio file",
  video: "a video",
};

/** Telegram cuts captions at 1,024 UTF-16 units. */
const CAPTION_UNITS = 1024;

export const TelegramUploadTooLarge = defineError<{ kind: string; size: number; cap: number }>(
  "telegram_upload_too_large",
);

/** One file as the matching send* call (multipart), refused before upload when it is over Telegram's cap. */
export async function sendTelegramFile(api: BotApi, target: ChatTarget, file: OutboundFile): Promise<SentMessage> {
  const cap = TELEGRAM_UPLOAD_CAPS[file.kind];
  if (file.bytes.byteLength > cap) {
    const size = Math.round((file.bytes.byteLength / MB) * 10) / 10;
    const hint =
      file.kind === "document" || file.kind === "video" || file.kind === "audio"
        ? ""
        : " Send it as a document instead (up to 50 MB).";
    throw TelegramUploadTooLarge(
      `${file.filename} is ${size} MB; Telegram bots can send ${NOUNS[file.kind]} of up to ${cap / MB} MB.${hint}`,
      { kind: file.kind, size: file.bytes.byteLength, cap },
    );
  }
  const { method, field } = METHODS[file.kind];
  let caption = file.caption?.trim();
  if (caption && caption.length > CAPTION_UNITS) caption = `${caption.slice(0, safeCut(caption, CAPTION_UNITS - 1))}…`;
  const result = await rateLimited(() =>
    api.upload(
      method,
      { ...chatParams(target), ...(caption ? { caption } : {}) },
      { field, bytes: file.bytes, filename: file.filename, mime: file.mime },
    ),
  );
  return { id: String((result as { message_id?: unknown })?.message_id ?? "") };
}
