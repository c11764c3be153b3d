import type { ChannelAdapter, InboundMessage } from "../channels/channel.ts";
import type { InboundSettlement, InboundStore, StoredInbound } from "../memory/inbound-contract.ts";
import { type ChannelAccess, callerFor } from "./channel-access.ts";

/**
 * The gateway's side of durable inbound (issue 26): an authorized sender's message is stored (memory.db) before the
 * adapter tells its platform it arrived, settled once answered, and found again after a crash. Without a store (unit
 * tests of the pipeline) every step passes the message through unchanged.
 */
export interface DurableInbound {
  /** Stores the message; "repeat" when the platform delivered it before (it is handled once). */
  remember(adapter: ChannelAdapter, message: InboundMessage): InboundMessage | "repeat";
  settle(ids: readonly number[] | undefined, state: InboundSettlement): void;
  /** Sent longer ago than the channel's backlog window: it waited while fermix was not running. */
  isLate(message: InboundMessage, access: ChannelAccess): boolean;
  /**
   * One channel's arrivals: `admit` routes a stored message on, or holds it while the channel starts; `resume` then
   * routes what a restart found pending first (a sender no longer allowed is settled, not answered), then the held.
   */
  arrivals(
    adapter: ChannelAdapter,
    access: ChannelAccess,
    route: (message: InboundMessage) => void,
  ): { admit(message: InboundMessage): void; resume(): number };
}

export function createDurableInbound(deps: {
  store?: InboundStore;
  now: () => number;
  log: { info(msg: string): void };
}): DurableInbound {
  const store = deps.store;

  /** A stored message as its channel revives it (attachments and all), or as memory.db kept it. */
  function revived(adapter: ChannelAdapter, row: StoredInbound): InboundMessage {
    const fromPlatform = row.raw !== undefined ? adapter.revive?.(row.raw) : undefined;
    return {
      ...(fromPlatform ?? {
        id: row.platformId,
        channel: row.channel,
        chatId: row.chat,
        ...(row.thread ? { thread: row.thread } : {}),
        senderId: row.sender,
        text: row.text,
        attachments: [],
      }),
      stored: [row.id],
      arrivedAt: row.arrivedAt,
      ...(row.sentAt !== undefined ? { sentAt: row.sentAt } : {}),
    };
  }

  const settle: DurableInbound["settle"] = (ids, state) => {
    if (ids?.length) store?.settle(ids, state);
  };

  return {
    remember(adapter, message) {
      if (!store) return message;
      const id = store.store({
        channel: adapter.name,
        chat: message.chatId,
        ...(message.thread ? { thread: message.thread } : {}),
        platformId: message.deliveryId ?? message.id,
        sender: message.senderId,
        text: message.text,
        ...(message.raw !== undefined ? { raw: message.raw } : {}),
        ...(message.sentAt !== undefined ? { sentAt: message.sentAt } : {}),
      });
      if (id === undefined) {
        deps.log.info(
          `${adapter.name}: message ${message.id} in chat ${message.chatId} was delivered again; handled once`,
        );
        return "repeat";
      }
      return { ...message, stored: [id] };
    },
    settle,
    isLate(message, access) {
      const sent = message.sentAt ?? message.arrivedAt;
      return sent !== undefined && deps.now() - sent > access.backlogMaxAgeMs;
    },
    arrivals(adapter, access, route) {
      // Stored while the channel starts: these wait until what a restart found pending has gone first, so a
      // conversation's messages keep their order across the restart.
      const held = new Map<number, InboundMessage>();
      let resumed = !store;
      return {
        admit(message) {
          const id = message.stored?.[0];
          if (resumed || id === undefined) route(message);
          else held.set(id, message);
        },
        resume() {
          const backlog = store?.pending(adapter.name) ?? [];
          resumed = true;
          for (const row of backlog) {
            if (!callerFor(access, row.sender)) settle([row.id], "answered");
            else route(held.get(row.id) ?? revived(adapter, row));
          }
          held.clear();
          if (backlog.length)
            deps.log.info(`${adapter.name}: ${backlog.length} stored message(s) were not answered yet`);
          return backlog.length;
        },
      };
    },
  };
}
