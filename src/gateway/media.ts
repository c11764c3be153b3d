import type { InboundAttachment, InboundMessage } from "../channels/channel.ts";
import { TranscriptionNotConfigured, TranscriptionTooLarge } from "../media/transcription/transcription-types.ts";

/** An image handed to the model with the message's text. */
export type TurnImage = { mime: string; data: Uint8Array };

/** Telegram's Bot API serves files up to 20 MB; larger ones are refused before any download. */
export const MAX_INBOUND_IMAGE_BYTES = 20 * 1024 * 1024;
export const DEFAULT_MAX_AUDIO_BYTES = 20 * 1024 * 1024;

/** What every vision wire (OpenAI, Anthropic, xAI, the Chat Completions hosts) accepts as inline image data. */
const MODEL_IMAGE_TYPES = new Set(["image/jpeg", "image/png", "image/gif", "image/webp"]);

export type PreparedMessage = { ok: true; text: string; images: TurnImage[] } | { ok: false; reply: string };

export type MediaDeps = {
  /** Turns a voice note or audio file into text; undefined when no backend is configured. */
  transcribe?: (audio: { bytes: Uint8Array; mime: string; filename?: string }) => Promise<string>;
  maxAudioBytes?: number;
  /** Why a transcription failed, for the owner's log (the sender gets a fixed sentence). */
  log?: { warn(msg: string): void };
};

export const TRANSCRIPTION_REPLIES = {
  notConfigured:
    "I couldn't transcribe your voice note — no transcription backend is configured. Run `fermix setup` to add one.",
  downloadFailed: "I couldn't download your attachment to transcribe it. Please try again.",
  failed: "I couldn't transcribe your voice note — the transcription failed. Please try again.",
  tooBig: (mb: number, limit: number) =>
    `I couldn't transcribe your voice note — it's ${mb} MB, over the ${limit} MB limit. Send a shorter clip.`,
} as const;

export const IMAGE_REPLIES = {
  downloadFailed: "I couldn't download your image. Please try again.",
  tooBig: (mb: number) => `I couldn't read your image — it's ${mb} MB, over the 20 MB limit. Send a smaller one.`,
  unsupported: (mime: string) =>
    `I can't read ${mime} images — send it as a photo (JPEG, PNG, GIF or WebP) and I'll look at it.`,
} as const;

export const VOICE_TRANSCRIPT_DELIMITER = "[voice note transcript]";

/**
 * After authorization, before the queue: voice notes become text (caption first, then the transcript under a
 * delimiter), images are downloaded for the model — all of a message's images in parallel, all or nothing. A
 * failure answers the sender with what went wrong and schedules no turn.
 */
export async function prepareMessage(message: InboundMessage, deps: MediaDeps): Promise<PreparedMessage> {
  let text = message.text;
  const pictures: InboundAttachment[] = [];
  for (const attachment of message.attachments) {
    if (attachment.transcribe) {
      const transcript = await transcribe(attachment, deps);
      if (!transcript.ok) return transcript;
      text = text ? `${text}\n\n${VOICE_TRANSCRIPT_DELIMITER}\n${transcript.text}` : transcript.text;
    } else if (attachment.kind === "image") {
      if (attachment.size !== undefined && attachment.size > MAX_INBOUND_IMAGE_BYTES) {
        return { ok: false, reply: IMAGE_REPLIES.tooBig(mb(attachment.size)) };
      }
      if (!MODEL_IMAGE_TYPES.has(attachment.mime.toLowerCase())) {
        return { ok: false, reply: IMAGE_REPLIES.unsupported(attachment.mime) };
      }
      pictures.push(attachment);
    }
  }
  let images: TurnImage[];
  try {
    images = await Promise.all(
      pictures.map(async (p) => ({ mime: p.mime.toLowerCase(), data: await p.download(MAX_INBOUND_IMAGE_BYTES) })),
    );
  } catch (err) {
    deps.log?.warn(`could not download an image: ${(err as Error)?.message ?? String(err)}`);
    return { ok: false, reply: IMAGE_REPLIES.downloadFailed };
  }
  return { ok: true, text, images };
}

async function transcribe(
  attachment: InboundAttachment,
  deps: MediaDeps,
): Promise<{ ok: true; text: string } | { ok: false; reply: string }> {
  if (!deps.transcribe) return { ok: false, reply: TRANSCRIPTION_REPLIES.notConfigured };
  const limit = deps.maxAudioBytes ?? DEFAULT_MAX_AUDIO_BYTES;
  if (attachment.size !== undefined && attachment.size > limit) {
    return { ok: false, reply: TRANSCRIPTION_REPLIES.tooBig(mb(attachment.size), mb(limit)) };
  }
  let bytes: Uint8Array;
  try {
    bytes = await attachment.download(limit);
  } catch (err) {
    deps.log?.warn(`could not download a voice note: ${(err as Error)?.message ?? String(err)}`);
    return { ok: false, reply: TRANSCRIPTION_REPLIES.downloadFailed };
  }
  try {
    const text = await deps.transcribe({ bytes, mime: attachment.mime, filename: attachment.filename });
    return { ok: true, text: text.trim() };
  } catch (err) {
    deps.log?.warn(`transcription failed: ${(err as Error)?.message ?? String(err)}`);
    if (TranscriptionNotConfigured.is(err)) return { ok: false, reply: TRANSCRIPTION_REPLIES.notConfigured };
    if (TranscriptionTooLarge.is(err) && err.data.limitBytes) {
      return { ok: false, reply: TRANSCRIPTION_REPLIES.tooBig(mb(bytes.byteLength), mb(err.data.limitBytes)) };
    }
    return { ok: false, reply: TRANSCRIPTION_REPLIES.failed };
  }
}

const mb = (bytes: number) => Math.round((bytes / 1024 / 1024) * 10) / 10;
