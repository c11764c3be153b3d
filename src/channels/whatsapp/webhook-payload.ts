import * as v from "valibot";
import type { AttachmentKind, InboundAttachment, InboundMessage } from "../channel.ts";

/*
 * The `messages` webhook of the WhatsApp Cloud API: entry[].changes[].value holds the business number it came to
 * (metadata.phone_number_id), the senders' profiles (contacts[]) and the messages[]; delivery receipts arrive in the
 * same shape as statuses[] and are not messages. Only the envelope is strict: one message of a shape this version
 * does not know is skipped, never the whole delivery.
 */

export const WebhookEnvelope = v.object({
  object: v.literal("whatsapp_business_account"),
  entry: v.array(
    v.looseObject({
      changes: v.array(v.looseObject({ field: v.string(), value: v.optional(v.unknown()) })),
    }),
  ),
});

const ChangeValue = v.looseObject({
  metadata: v.optional(v.looseObject({ phone_number_id: v.optional(v.string()) })),
  contacts: v.optional(
    v.array(
      v.looseObject({
        wa_id: v.optional(v.string()),
        profile: v.optional(v.looseObject({ name: v.optional(v.string()) })),
      }),
    ),
  ),
  messages: v.optional(v.array(v.unknown())),
});

const Media = v.looseObject({
  id: v.string(),
  mime_type: v.optional(v.string()),
  caption: v.optional(v.string()),
  filename: v.optional(v.string()),
  file_size: v.optional(v.number()),
});

const Message = v.looseObject({
  from: v.string(),
  id: v.string(),
  type: v.string(),
  text: v.optional(v.looseObject({ body: v.string() })),
  image: v.optional(Media),
  audio: v.optional(Media),
  video: v.optional(Media),
  document: v.optional(Media),
  button: v.optional(v.looseObject({ text: v.optional(v.string()) })),
  interactive: v.optional(
    v.looseObject({
      button_reply: v.optional(v.looseObject({ title: v.optional(v.string()) })),
      list_reply: v.optional(v.looseObject({ title: v.optional(v.string()) })),
    }),
  ),
  location: v.optional(
    v.looseObject({
      latitude: v.number(),
      longitude: v.number(),
      name: v.optional(v.string()),
      address: v.optional(v.string()),
    }),
  ),
});
type Message = v.InferOutput<typeof Message>;

/** Fetches one inbound media item by its Graph media id, refused past `maxBytes`. */
export type FetchMedia = (mediaId: string, declared: number | undefined, maxBytes: number) => Promise<Uint8Array>;

// Not turns: a reaction to an earlier message, a system notice (a number change), an order's status.
const NOT_MESSAGES = new Set(["reaction", "system", "ephemeral", "request_welcome"]);

/**
 * The messages of one delivery that are for `phoneNumberId` (a WhatsApp Business Account may hold several numbers
 * and the app's webhook gets them all), as gateway messages; `skipped` counts those of a shape this version does
 * not read. 1:1 only: the chat is the sender's wa_id. Images carry a per-sender group id so separate pictures sent
 * in a row make one turn, as WhatsApp has no album id of its own.
 */
export function parseWebhook(
  envelope: v.InferOutput<typeof WebhookEnvelope>,
  phoneNumberId: string,
  fetchMedia: FetchMedia,
): { messages: InboundMessage[]; skipped: number } {
  const messages: InboundMessage[] = [];
  let skipped = 0;
  for (const entry of envelope.entry) {
    for (const change of entry.changes) {
      if (change.field !== "messages") continue;
      const value = v.safeParse(ChangeValue, change.value);
      if (!value.success) {
        skipped += 1;
        continue;
      }
      if (value.output.metadata?.phone_number_id !== phoneNumberId) continue;
      const names = new Map<string, string>();
      for (const contact of value.output.contacts ?? []) {
        if (contact.wa_id && contact.profile?.name) names.set(contact.wa_id, contact.profile.name);
      }
      for (const raw of value.output.messages ?? []) {
        const parsed = v.safeParse(Message, raw);
        if (!parsed.success) {
          skipped += 1;
          continue;
        }
        if (NOT_MESSAGES.has(parsed.output.type)) continue;
        const inbound = toInbound(parsed.output, phoneNumberId, names.get(parsed.output.from), fetchMedia);
        // This one message as a delivery of its own: what revives it after a restart (reviveWebhookMessage).
        const own = { ...value.output, messages: [raw] };
        messages.push({
          ...inbound,
          raw: { object: envelope.object, entry: [{ ...entry, changes: [{ ...change, value: own }] }] },
        });
      }
    }
  }
  return { messages, skipped };
}

/** A message kept in memory.db (its own one-message delivery, as parseWebhook stored it) made again. */
export function reviveWebhookMessage(
  raw: unknown,
  phoneNumberId: string,
  fetchMedia: FetchMedia,
): InboundMessage | undefined {
  const envelope = v.safeParse(WebhookEnvelope, raw);
  return envelope.success ? parseWebhook(envelope.output, phoneNumberId, fetchMedia).messages[0] : undefined;
}

function toInbound(
  message: Message,
  phoneNumberId: string,
  senderName: string | undefined,
  fetchMedia: FetchMedia,
): InboundMessage {
  const attachments: InboundAttachment[] = [];
  let text = "";
  switch (message.type) {
    case "text":
      text = message.text?.body ?? "";
      break;
    case "image":
    case "audio":
    case "video":
    case "document": {
      const media = message[message.type];
      if (!media) break;
      text = media.caption ?? "";
      attachments.push(attachment(message.type, media, fetchMedia));
      break;
    }
    case "button":
      text = message.button?.text ?? "";
      break;
    case "interactive":
      text = message.interactive?.button_reply?.title ?? message.interactive?.list_reply?.title ?? "";
      break;
    case "location": {
      const at = message.location;
      if (at) {
        const label = [at.name, at.address].filter(Boolean).join(", ");
        text = `[location: ${at.latitude}, ${at.longitude}${label ? ` — ${label}` : ""}]`;
      }
      break;
    }
    // A sticker, a poll, a contact card, "unsupported": nothing to read; the gateway says the message looks empty.
  }
  const from = message.from.trim();
  return {
    id: message.id,
    channel: "whatsapp",
    chatId: from,
    senderId: from,
    ...(senderName ? { senderName } : {}),
    text,
    attachments,
    chatType: "private",
    ...(message.type === "image" ? { mediaGroupId: `${phoneNumberId}:${from}` } : {}),
    ...(Number.isFinite(Number(message.timestamp)) ? { sentAt: Number(message.timestamp) * 1000 } : {}),
  };
}

function attachment(
  type: "image" | "audio" | "video" | "document",
  media: v.InferOutput<typeof Media>,
  fetchMedia: FetchMedia,
): InboundAttachment {
  // "audio/ogg; codecs=opus": the parameters mean nothing to the model or a transcription service.
  const mime = (media.mime_type ?? defaultMime(type)).split(";")[0]!.trim().toLowerCase();
  // A document that is really a recording is transcribed like a voice note.
  const kind: AttachmentKind = type === "document" && mime.startsWith("audio/") ? "audio" : type;
  return {
    kind,
    mime,
    ...(media.file_size !== undefined ? { size: media.file_size } : {}),
    ...(media.filename ? { filename: media.filename } : {}),
    ...(kind === "audio" ? { transcribe: true } : {}),
    download: (maxBytes) => fetchMedia(media.id, media.file_size, maxBytes),
  };
}

function defaultMime(type: "image" | "audio" | "video" | "document"): string {
  return type === "image"
    ? "image/jpeg"
    : type === "audio"
      ? "audio/ogg"
      : type === "video"
        ? "video/mp4"
        : "application/octet-stream";
}
