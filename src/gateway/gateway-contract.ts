import type { ChannelAdapter, InboundMessage } from "../channels/channel.ts";
import type { ChannelAccess } from "./channel-access.ts";

/** The inbound pipeline every chat channel shares: adapters hand it messages, it runs their turns. */
export interface Gateway {
  /**
   * The function an adapter hands each message to; it resolves once the message is stored (memory.db), and never
   * throws: a failure is logged.
   */
  attach(adapter: ChannelAdapter, access: ChannelAccess): (message: InboundMessage) => Promise<void>;

  /**
   * Once the adapter has started: the messages a restart found stored and unanswered go through the pipeline first
   * (a late one gets the "arrived while fermix was not running" reply), then what arrived while it started. How many
   * were pending.
   */
  resume(adapter: ChannelAdapter): number;

  /** Turns running now, across channels. */
  active(): number;

  stopAll(reason: unknown): { turns: number; queued: number };

  idle(): Promise<void>;
}
