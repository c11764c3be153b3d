import type { ChannelAdapter, InboundMessage } from "../channels/channel.ts";
import type { ChannelAccess } from "./channel-access.ts";

/** The inbound pipeline every chat channel shares: adapters hand it messages, it runs their turns. */
export interface Gateway {
  /** The function an adapter hands each message to. Never throws: a failure is logged. */
  attach(adapter: ChannelAdapter, access: ChannelAccess): (message: InboundMessage) => void;

  /** Turns running now, across channels. */
  active(): number;

  stopAll(reason: unknown): { turns: number; queued: number };

  idle(): Promise<void>;
}
