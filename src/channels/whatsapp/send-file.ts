import type { OutboundFile } from "../../capabilities/channel-reply.ts";
import { defineError } from "../../error.ts";
import type { ChatTarget, SentMessage } from "../channel.ts";
import type { GraphApi } from "./graph-api.ts";
import { messageTo, type SendAnswer, sentId } from "./send-reply.ts";

const MB = 1024 * 1024;

/** The Cloud API's media caps: images 5 MB, audio, voice and video 16 MB, documents 100 MB. */
export const WHATSAPP_UPLOAD_CAPS: Record<OutboundFile["kind"], number> = {
  image: 5 * MB,
  voice: 16 * MB,
  audio: 16 * MB,
  video: 16 * MB,
  document: 100 * MB,
};

// The Cloud API's media types: nothing else uploads. A file of another kind that is one of the document types goes
// as a document; any text (Markdown, CSV, JSON) goes as text/plain.
const INLINE_TYPES: Partial<Record<OutboundFile["kind"], ReadonlySet<string>>> = {
  image: new Set(["image/jpeg", "image/png"]),
  video: new Set(["video/mp4", "video/3gpp"]),
  audio: new Set(["audio/aac", "audio/amr", "audio/mpeg", "audio/mp4", "audio/ogg"]),
};
const DOCUMENT_TYPES = new Set([
  "text/plain",
  "application/pdf",
  "application/msword",
  "application/vnd.ms-excel",
  "application/vnd.ms-powerpoint",
  "application/vnd.openxmlformats-officedocument.wordprocessingml.document",
  "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet",
  "application/vnd.openxmlformats-officedocument.presentationml.presentation",
]);
const ACCEPTED =
  "JPEG or PNG images, MP4 or 3GPP videos, AAC, AMR, MP3, M4A or Ogg audio, and PDF, text or Office documents";

function documentType(mime: string): string | undefined {
  if (DOCUMENT_TYPES.has(mime)) return mime;
  return mime.startsWith("text/") || mime === "application/json" ? "text/plain" : undefined;
}

/** WhatsApp cuts captions here. */
const CAPTION_CHARS = 1024;

export const WhatsAppUploadRefused = defineError<{ kind: string; size?: number; cap?: number }>(
  "whatsapp_upload_refused",
);

/**
 * One file into the chat: uploaded to /{phone_number_id}/media (multipart), then sent as a message of its type
 * with the media id. A voice note must be Ogg/Opus (WhatsApp plays nothing else as one); a file WhatsApp cannot show
 * as its kind goes as a document when it is one of the document types, and is refused with the list otherwise.
 */
export async function sendWhatsAppFile(
  api: GraphApi,
  phoneNumberId: string,
  target: ChatTarget,
  file: OutboundFile,
): Promise<SentMessage> {
  const mime = file.mime.split(";")[0]!.trim().toLowerCase();
  let kind: OutboundFile["kind"] = file.kind;
  if (kind === "voice" && mime !== "audio/ogg" && mime !== "audio/opus") {
    throw WhatsAppUploadRefused(
      `${file.filename} is ${mime}; a WhatsApp voice note must be audio/ogg with the Opus codec. Send it as audio instead.`,
      { kind },
    );
  }
  let uploadType = kind === "voice" ? "audio/ogg; codecs=opus" : mime;
  if (kind !== "voice" && !INLINE_TYPES[kind]?.has(mime)) {
    const asDocument = documentType(mime);
    if (!asDocument) {
      throw WhatsAppUploadRefused(`${file.filename} is ${mime}, which WhatsApp does not send; it takes ${ACCEPTED}.`, {
        kind,
      });
    }
    kind = "document";
    uploadType = asDocument;
  }
  const cap = WHATSAPP_UPLOAD_CAPS[kind];
  if (file.bytes.byteLength > cap) {
    const size = Math.round((file.bytes.byteLength / MB) * 10) / 10;
    const hint = kind === "document" ? "" : " Send it as a document instead (up to 100 MB).";
    throw WhatsAppUploadRefused(
      `${file.filename} is ${size} MB; WhatsApp takes ${noun(kind)} of up to ${cap / MB} MB.${hint}`,
      {
        kind,
        size: file.bytes.byteLength,
        cap,
      },
    );
  }
  const uploaded = await api.upload<{ id?: unknown }>(
    `${phoneNumberId}/media`,
    { messaging_product: "whatsapp", type: uploadType },
    { bytes: file.bytes, filename: file.filename, mime: uploadType },
  );
  if (typeof uploaded?.id !== "string")
    throw WhatsAppUploadRefused("WhatsApp gave no media id for the upload", { kind });
  const type = kind === "voice" ? "audio" : kind;
  const caption = file.caption?.trim() ? [...file.caption.trim()].slice(0, CAPTION_CHARS).join("") : undefined;
  const media: Record<string, unknown> = {
    id: uploaded.id,
    // Audio and voice notes show no caption; WhatsApp refuses one.
    ...(caption && type !== "audio" ? { caption } : {}),
    ...(type === "document" ? { filename: file.filename } : {}),
  };
  const answer = await api.post<SendAnswer>(`${phoneNumberId}/messages`, {
    ...messageTo(target.chatId),
    type,
    [type]: media,
  });
  return { id: sentId(answer) };
}

function noun(kind: OutboundFile["kind"]): string {
  return { image: "images", voice: "voice notes", audio: "audio files", video: "videos", document: "documents" }[kind];
}
