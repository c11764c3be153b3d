import type { ChannelHealth } from "../channel.ts";

/** Telegram's long polling: runs until stop, its health as data. */
export interface Poller {
  /**
   * Probes once (a token Telegram rejects fails here, loudly) and leaves the loop running. Any other failure of
   * the probe is the loop's to retry: the channel starts, reports its state, and catches up when it can.
   */
  start(): Promise<void>;
  stop(): Promise<void>;
  health(): ChannelHealth;
}
