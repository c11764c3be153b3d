import type { InboundMessage } from "../channels/channel.ts";

/** Album parts held until their siblings arrive, then handed on as one message. */
export interface AlbumBuffer {
  /** A message in: one without a group id is handed on at once; album parts wait for their siblings. */
  push(message: InboundMessage): void;
  /** Albums still collecting parts. */
  pending(): number;
  /** Drops what is still collecting (a stopping daemon). */
  stop(): void;
}
