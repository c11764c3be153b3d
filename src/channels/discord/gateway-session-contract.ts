import type { ChannelHealth } from "../channel.ts";

/** Discord's gateway connection: kept open (resumed, re-identified) until stop, its health as data. */
export interface GatewaySession {
  /** Starts connecting and returns; READY, resumes and drops show in health(). */
  start(): Promise<void>;
  stop(): Promise<void>;
  health(): ChannelHealth;
}
