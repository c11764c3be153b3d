import * as v from "valibot";
import type { AttachmentKind, InboundAttachment, InboundMessage } from "../channel.ts";

/*
 * signal-cli's `receive` notification, as its JSON-RPC mode writes it (signal-cli-jsonrpc(5); the records are
 * JsonMessageEnvelope, JsonDataMessage and JsonAttachment in its org.asamk.signal.json package):
 *   {"method":"receive","params":{"account":"+1…","envelope":{"source","sourceNumber","sourceUuid","sourceName",
 *    "timestamp","dataMessage":{"timestamp","message","attachments":[{"contentType","filename","id","size"}],
 *    "groupInfo",…}}}}
 * Only what the adapter reads is declared; signal-cli adds fields from release to release, and they pass.
 */

const Text = v.nullish(v.string());

const Attachment = v.object({
  contentType: Text,
  filename: Text,
  /** The name signal-cli stored it under in <data dir>/attachments/ (since 0.11.5 its id plus an extension). */
  id: Text,
  size: v.nullish(v.number()),
});

const DataMessage = v.object({
  timestamp: v.nullish(v.number()),
  message: Text,
  attachments: v.nullish(v.array(Attachment)),
  groupInfo: v.nullish(v.unknown()),
  // Older signal-cli releases named version-2 groups apart.
  groupV2: v.nullish(v.unknown()),
  reaction: v.nullish(v.unknown()),
  remoteDelete: v.nullish(v.unknown()),
  isExpirationUpdate: v.nullish(v.boolean()),
});

const Envelope = v.object({
  source: Text,
  sourceNumber: Text,
  sourceUuid: Text,
  sourceName: Text,
  timestamp: v.number(),
  dataMessage: v.nullish(DataMessage),
});

export const ReceiveParams = v.object({
  account: Text,
  envelope: v.nullish(Envelope),
  exception: v.nullish(v.object({ message: Text, type: Text })),
});

/** Signal's long-text body: signal-cli has already put the whole text in `message`; the file is not for the model. */
const LONG_TEXT = "text/x-signal-plain";

export type ParsedReceive =
  | { kind: "message"; message: InboundMessage }
  /** Dropped on purpose (a group, a reaction, a receipt…), with why when it is worth a log line. */
  | { kind: "ignored"; why?: string };

export type ParseDeps = {
  /** Addresses config.toml names (owner, allow-list): a sender known by its UUID there is identified by it. */
  known: ReadonlySet<string>;
  /** Reads a stored attachment by its id, refusing past `maxBytes`. */
  readAttachment(id: string, maxBytes: number): Promise<Uint8Array>;
};

/**
 * A `receive` notification → the message for the gateway. One-to-one chats only: anything in a group is dropped,
 * as are envelopes that are not a person writing (receipts, typing, sync messages from the account's other
 * devices, reactions, deletions, expiry-timer changes).
 */
export function parseReceive(params: unknown, deps: ParseDeps): ParsedReceive {
  const parsed = v.safeParse(ReceiveParams, params);
  if (!parsed.success)
    return { kind: "ignored", why: `an unreadable receive notification (${parsed.issues[0].message})` };
  const { envelope, exception } = parsed.output;
  if (exception)
    return { kind: "ignored", why: `signal-cli could not read a message: ${exception.message ?? exception.type}` };
  const data = envelope?.dataMessage;
  if (!envelope || !data) return { kind: "ignored" };
  const sender = senderOf(envelope, deps.known);
  if (!sender) return { kind: "ignored", why: "a message without a sender address" };
  if (data.groupInfo || data.groupV2) {
    return { kind: "ignored", why: `a group message from ${sender} (fermix answers one-to-one chats only)` };
  }
  if (data.reaction || data.remoteDelete || data.isExpirationUpdate) return { kind: "ignored" };
  const attachments = (data.attachments ?? [])
    .filter((a) => a.contentType !== LONG_TEXT)
    .map((a) => attachmentOf(a, deps));
  return {
    kind: "message",
    message: {
      // What a reaction names as its target: the message's timestamp (with its author, the chat).
      id: String(data.timestamp ?? envelope.timestamp),
      channel: "signal",
      chatId: sender,
      senderId: sender,
      ...(envelope.sourceName ? { senderName: envelope.sourceName } : {}),
      text: data.message ?? "",
      attachments,
      chatType: "private",
      ...(typeof data.timestamp === "number" ? { sentAt: data.timestamp } : {}),
      // The notification itself revives the message after a restart (its attachments are files signal-cli keeps).
      raw: params,
    },
  };
}

/**
 * The number, unless config.toml knows this person by their UUID (a sender who hides their number has only that).
 * The same address is where the reply goes.
 */
function senderOf(envelope: v.InferOutput<typeof Envelope>, known: ReadonlySet<string>): string | undefined {
  const candidates = [envelope.sourceNumber, envelope.sourceUuid, envelope.source].filter(
    (a): a is string => typeof a === "string" && a.trim() !== "",
  );
  return candidates.find((a) => known.has(a)) ?? candidates[0];
}

function attachmentOf(a: v.InferOutput<typeof Attachment>, deps: ParseDeps): InboundAttachment {
  const mime = (a.contentType ?? "application/octet-stream").toLowerCase();
  const kind = kindOf(mime);
  const id = a.id;
  return {
    kind,
    mime,
    ...(a.size != null ? { size: a.size } : {}),
    ...(a.filename ? { filename: a.filename } : {}),
    // Signal voice notes are audio/aac (the JSON does not carry the voice-note flag): all audio is transcribed.
    ...(kind === "audio" ? { transcribe: true } : {}),
    download: (maxBytes) =>
      id
        ? deps.readAttachment(id, maxBytes)
        : Promise.reject(new Error("signal-cli did not store this attachment (is it run with --ignore-attachments?)")),
  };
}

function kindOf(mime: string): AttachmentKind {
  if (mime.startsWith("image/")) return "image";
  if (mime.startsWith("audio/")) return "audio";
  if (mime.startsWith("video/")) return "video";
  return "document";
}
