import type { ChannelAdapter } from "../channels/channel.ts";
import type { WebhookListenerState } from "./webhooks/webhook-listener-contract.ts";

export type ChannelState = {
  name: string;
  /** starting → running; refused (its config lets nobody in); failed (could not start: the reason). */
  state: "starting" | "running" | "refused" | "failed";
  connected: boolean;
  last_update_at: string | null;
  degraded: string | null;
  reason: string | null;
};

/** The daemon's chat channels: started and stopped together, each one's state, and a running one by name. */
export interface ChannelsRuntime {
  /** Starts every enabled channel; resolves when each has started, failed, or had CHANNEL_START_WAIT_MS. */
  start(): Promise<void>;

  stop(): Promise<void>;

  /** Each enabled channel's live state. */
  status(): ChannelState[];

  /** The webhook port's state: idle (no webhook channel), listening, or failed (port in use: the fix). */
  webhooks(): WebhookListenerState;

  /** A running channel by name (job delivery, send_attachment). */
  adapter(name: string): ChannelAdapter | undefined;
}
