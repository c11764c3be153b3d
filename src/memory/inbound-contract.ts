/** A message an authorized sender sent, as memory.db keeps it until its answer is recorded. */
export type StoredInbound = {
  id: number;
  channel: string;
  chat: string;
  thread?: string;
  /** The platform's message id (unique within its chat). */
  platformId: string;
  sender: string;
  text: string;
  /** The platform's own payload, from which the channel revives the message (attachments included) after a restart. */
  raw?: unknown;
  /** When the platform says it was sent, epoch ms, where it says. */
  sentAt?: number;
  /** When fermix stored it. */
  arrivedAt: number;
};

export type InboundSettlement = "answered" | "stopped" | "late";

/** Durable inbound messages: stored before the platform is told they arrived, settled once answered. */
export interface InboundStore {
  /** Stores a message; undefined when the same (channel, chat, platform id) is already stored (a redelivery). */
  store(message: Omit<StoredInbound, "id" | "arrivedAt">): number | undefined;
  /** Settles rows still pending (a settled row never changes again). */
  settle(ids: readonly number[], state: InboundSettlement): void;
  /** A channel's messages whose answer was never recorded, oldest first. */
  pending(channel: string): StoredInbound[];
  /** Where a channel had read up to (Telegram's next update offset), as it saved it. */
  cursor(channel: string): string | undefined;
  saveCursor(channel: string, cursor: string): void;
}
