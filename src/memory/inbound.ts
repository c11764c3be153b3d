import type { SqlDatabase } from "../runtime/sqlite.ts";
import type { InboundSettlement, InboundStore, StoredInbound } from "./inbound-contract.ts";

type Row = {
  id: number;
  channel: string;
  chat: string;
  thread: string;
  platform_id: string;
  sender: string;
  text: string;
  raw: string | null;
  sent_at: number | null;
  arrived_at: number;
};

/** Settled messages are kept this long (a platform's late redelivery still finds them), then pruned. */
export const SETTLED_KEEP_MS = 7 * 24 * 60 * 60 * 1000;

/**
 * What the owner (or a guest) sent, in memory.db (migration 7) before anything acknowledges it: a crash between the
 * platform's "received" and the answer loses nothing, and a platform's redelivery is one row, not a second turn.
 */
export function createInboundStore(db: SqlDatabase, now: () => number): InboundStore {
  const insert = db.query(
    `INSERT OR IGNORE INTO inbound_messages (channel, chat, thread, platform_id, sender, text, raw, sent_at, arrived_at)
     VALUES ($channel, $chat, $thread, $platform_id, $sender, $text, $raw, $sent_at, $arrived_at)`,
  );
  const settleOne = inboundSettler(db, now);
  const pendingRows = db.query(
    "SELECT * FROM inbound_messages WHERE channel = $channel AND state = 'pending' ORDER BY id",
  );
  const prune = db.query("DELETE FROM inbound_messages WHERE state <> 'pending' AND settled_at < $before");
  const readCursor = db.query("SELECT cursor FROM channel_cursors WHERE channel = $channel");
  const writeCursor = db.query(
    `INSERT INTO channel_cursors (channel, cursor, updated_at) VALUES ($channel, $cursor, $at)
     ON CONFLICT (channel) DO UPDATE SET cursor = excluded.cursor, updated_at = excluded.updated_at`,
  );
  return {
    store(message) {
      const result = insert.run({
        channel: message.channel,
        chat: message.chat,
        thread: message.thread ?? "",
        platform_id: message.platformId,
        sender: message.sender,
        text: message.text,
        raw: message.raw === undefined ? null : JSON.stringify(message.raw),
        sent_at: message.sentAt ?? null,
        arrived_at: now(),
      });
      return result.changes ? Number(result.lastInsertRowid) : undefined;
    },
    settle(ids, state) {
      if (!ids.length) return;
      db.transaction(() => {
        for (const id of ids) settleOne(id, state);
      }).immediate();
    },
    pending(channel) {
      prune.run({ before: now() - SETTLED_KEEP_MS });
      return (pendingRows.all({ channel }) as Row[]).map(fromRow);
    },
    cursor(channel) {
      return (readCursor.get({ channel }) as { cursor: string } | null)?.cursor;
    },
    saveCursor(channel, cursor) {
      writeCursor.run({ channel, cursor, at: now() });
    },
  };
}

/**
 * Settles one pending message (a settled one never changes again); shared with the message store, which settles
 * what a turn answers inside the turn's own commit.
 */
export function inboundSettler(db: SqlDatabase, now: () => number): (id: number, state: InboundSettlement) => void {
  const settle = db.query(
    "UPDATE inbound_messages SET state = $state, settled_at = $at WHERE id = $id AND state = 'pending'",
  );
  return (id, state) => void settle.run({ id, state, at: now() });
}

function fromRow(row: Row): StoredInbound {
  return {
    id: row.id,
    channel: row.channel,
    chat: row.chat,
    ...(row.thread ? { thread: row.thread } : {}),
    platformId: row.platform_id,
    sender: row.sender,
    text: row.text,
    ...(row.raw !== null ? { raw: JSON.parse(row.raw) as unknown } : {}),
    ...(row.sent_at !== null ? { sentAt: row.sent_at } : {}),
    arrivedAt: row.arrived_at,
  };
}
