import type { SqlDatabase } from "../../runtime/sqlite.ts";
import type { Dedupe } from "./dedupe-contract.ts";

/** How long a platform's message id is remembered: its retries of one delivery come within this. */
export const DEDUPE_TTL_MS = 24 * 60 * 60 * 1000;

/**
 * Platforms re-deliver a webhook when the answer is slow or lost; one message must still make one turn. Keyed on
 * (channel, message id); an entry can be forgotten again when dispatching failed, so the platform's retry runs.
 */
export function createDedupe(opts: { ttlMs?: number; now?: () => number } = {}): Dedupe {
  const ttl = opts.ttlMs ?? DEDUPE_TTL_MS;
  const now = opts.now ?? Date.now;
  const seen = new Map<string, number>();
  let lastSweep = now();

  const sweep = () => {
    const t = now();
    if (t - lastSweep < 5 * 60_000) return;
    lastSweep = t;
    for (const [key, at] of seen) if (t - at > ttl) seen.delete(key);
  };

  return {
    first(channel: string, messageId: string): boolean {
      sweep();
      const key = `${channel}\u001f${messageId}`;
      const at = seen.get(key);
      if (at !== undefined && now() - at <= ttl) return false;
      seen.set(key, now());
      return true;
    },
    forget(channel: string, messageId: string): void {
      seen.delete(`${channel}\u001f${messageId}`);
    },
  };
}

/**
 * The same window in memory.db (migration 7's webhook_seen), so a platform's retry that comes after a restart is
 * still a repeat: one message, one turn, whatever happened to the daemon in between.
 */
export function createDurableDedupe(db: SqlDatabase, opts: { ttlMs?: number; now?: () => number } = {}): Dedupe {
  const ttl = opts.ttlMs ?? DEDUPE_TTL_MS;
  const now = opts.now ?? Date.now;
  const seenAt = db.query("SELECT seen_at FROM webhook_seen WHERE channel = $channel AND message_id = $id");
  const mark = db.query(
    `INSERT INTO webhook_seen (channel, message_id, seen_at) VALUES ($channel, $id, $at)
     ON CONFLICT (channel, message_id) DO UPDATE SET seen_at = excluded.seen_at`,
  );
  const forget = db.query("DELETE FROM webhook_seen WHERE channel = $channel AND message_id = $id");
  const sweep = db.query("DELETE FROM webhook_seen WHERE seen_at < $before");
  let lastSweep = 0;
  return {
    first(channel, messageId) {
      const t = now();
      if (t - lastSweep >= 5 * 60_000) {
        lastSweep = t;
        sweep.run({ before: t - ttl });
      }
      const at = (seenAt.get({ channel, id: messageId }) as { seen_at: number } | null)?.seen_at;
      if (at !== undefined && t - at <= ttl) return false;
      mark.run({ channel, id: messageId, at: t });
      return true;
    },
    forget(channel, messageId) {
      forget.run({ channel, id: messageId });
    },
  };
}
