import type { OutboundFile } from "../capabilities/channel-reply.ts";
import type { Dedupe } from "../gateway/webhooks/dedupe-contract.ts";
import type { WebhookRegistry } from "../gateway/webhooks/webhook-listener-contract.ts";
import type { ConversationKey } from "../memory/messages-contract.ts";

/*
 * What a chat platform adapter is to the gateway. An adapter turns platform updates into InboundMessages and
 * sends what the gateway asks it to; trust, queues, commands, media and turns are the gateway's. A new platform is
 * one folder under src/channels/ implementing ChannelAdapter, plus one line in registry.ts.
 */

export type AttachmentKind = "image" | "audio" | "video" | "document";

/** A file that came with a message. Downloaded only when the gateway wants it (after authorization). */
export type InboundAttachment = {
  kind: AttachmentKind;
  mime: string;
  /** As the platform declared it, when it did: checked against caps before anything is downloaded. */
  size?: number;
  filename?: string;
  /** Voice notes, audio files and video notes are transcribed before the turn. */
  transcribe?: boolean;
  /** Fetches the bytes, refusing past `maxBytes` (declared or while streaming). */
  download(maxBytes: number): Promise<Uint8Array>;
};

export type InboundMessage = {
  /** The platform's message id (Telegram: message_id as a string; a button tap: `callback-<id>`). */
  id: string;
  channel: string;
  chatId: string;
  /** Forum topic, Slack thread: one conversation per thread. */
  thread?: string;
  /** Who sent it, as the platform authenticates them: the key for owner/allow-list checks. */
  senderId: string;
  senderName?: string;
  text: string;
  attachments: InboundAttachment[];
  chatType?: "private" | "group" | "channel";
  /** Telegram albums: parts sharing this id are coalesced into one turn. */
  mediaGroupId?: string;
  /** Set when the message is a button tap turned into a command (`/confirm TOKEN`): acknowledged after handling. */
  tap?: { id: string; messageId: string };
  /** The platform's id of this delivery, where it differs from the message's (Telegram's update_id: an edit too). */
  deliveryId?: string;
  /** When the platform says it was sent (epoch ms): a message older than the backlog window gets no turn. */
  sentAt?: number;
  /**
   * The platform's payload for this message (JSON): kept with it in memory.db so that `revive` can make the same
   * message again, attachments included, after a restart.
   */
  raw?: unknown;
  /** The gateway's: the memory.db rows this message answers (an album has several). */
  stored?: readonly number[];
  /** The gateway's: when a message revived after a restart was first stored (epoch ms). */
  arrivedAt?: number;
};

/** Where a reply goes. */
export type ChatTarget = { chatId: string; thread?: string; replyTo?: string };

/** A button row under a message; `data` comes back in a tap (Telegram callback_data ≤ 64 bytes). */
export type MessageButton = { text: string; data: string };

export type OutboundText = {
  /** Markdown as the model writes it; the adapter renders it for its platform. */
  markdown: string;
  buttons?: MessageButton[];
  /** Send without a notification sound (all chunks after the first of a reply). */
  silent?: boolean;
};

export type SentMessage = { id: string };

export type ChannelHealth = {
  /** Receiving updates now. */
  connected: boolean;
  /** When the last update (or successful poll) arrived, epoch ms. */
  lastUpdateAt?: number;
  /** Set after repeated failures: what is wrong and what to do. */
  degraded?: string;
};

export type ChannelCapabilities = {
  /** Can edit a sent message in place (draft streaming). */
  editMessages: boolean;
  /** Emoji the platform accepts as reactions; undefined: no reactions. */
  reactions?: readonly string[];
  /** Shows the one-tap Approve/Deny buttons for directory access. */
  approveButtons: boolean;
  /** Largest file it sends, per kind (bytes). */
  maxUploadBytes: number;
  /**
   * How much Markdown one message edited in place holds (UTF-16 units): a draft longer than this is sealed with
   * its head and the rest follows as ordinary messages. Unset: 4,000 (the draft default).
   */
  draftUnits?: number;
  /**
   * The platform has no album id (WhatsApp): pictures a sender sends in a row are coalesced by sender, and that
   * sender's next message that is no picture hands the pending album on first instead of overtaking it.
   */
  albumsBySender?: boolean;
};

export type ChannelAdapter = {
  readonly name: string;
  readonly capabilities: ChannelCapabilities;
  /**
   * Starts receiving: every update becomes `ingest(message)`, which resolves once the message is stored; an adapter
   * tells its platform a message arrived (an offset, an ack, a webhook's 200) only after that. Resolves once started
   * (never waits for the first message); keeps going, with its own backoff, until `stop()`.
   */
  start(ingest: (message: InboundMessage) => Promise<void> | void): Promise<void>;
  /** The message a stored `raw` payload was (after a restart); absent: the gateway revives text alone. */
  revive?(raw: unknown): InboundMessage | undefined;
  stop(): Promise<void>;
  send(target: ChatTarget, text: OutboundText): Promise<SentMessage[]>;
  /** Replaces a sent message's text (a draft), best effort. */
  edit?(target: ChatTarget, id: string, text: OutboundText): Promise<void>;
  delete?(target: ChatTarget, id: string): Promise<void>;
  sendFile?(target: ChatTarget, file: OutboundFile): Promise<SentMessage>;
  react?(target: ChatTarget, messageId: string, emoji: string): Promise<void>;
  /** "typing…" for a few seconds; the gateway repeats it while a turn runs. */
  typing?(target: ChatTarget): Promise<void>;
  /** Acknowledges a button tap and removes the buttons from its message. */
  answerTap?(tapId: string, target: ChatTarget, messageId: string): Promise<void>;
  health(): ChannelHealth;
  /** One live check of the credentials (doctor): a sentence on failure. */
  check(): Promise<{ ok: true; detail: string } | { ok: false; detail: string; fix: string }>;
};

/** What a platform adapter is built with; the registry hands it to each adapter's factory. */
export type ChannelDeps = {
  /** The channel's own [fermix_channels.<name>] table, validated. */
  config: Record<string, unknown>;
  /** Resolves a secret reference ("@keyring", "$ENV", plaintext) for a slot such as TELEGRAM_BOT_TOKEN. */
  resolveSecret(ref: unknown, slot: string): string;
  log: { info(msg: string): void; warn(msg: string): void; error(msg: string): void };
  now: () => number;
  /** The daemon's environment, for the platforms' documented env overlays (never a Telegram bot token). */
  env: Readonly<Record<string, string | undefined>>;
  /** Webhook routes on the separate loopback webhook port; it listens only once a channel registers one. */
  webhooks: WebhookRegistry;
  /** (channel, message id) seen in the last 24 h: a re-delivered webhook makes one turn. */
  dedupe: Dedupe;
  /** Where this channel had read up to (Telegram's offset), kept across restarts in memory.db; absent in tests. */
  cursor?: { load(): string | undefined; save(value: string): void };
};

/** The conversation a message belongs to: one per (channel, chat, thread). */
export function conversationOf(message: Pick<InboundMessage, "channel" | "chatId" | "thread">): ConversationKey {
  return { channel: message.channel, chat: message.chatId, ...(message.thread ? { thread: message.thread } : {}) };
}
