import type { SqlDatabase } from "../runtime/sqlite.ts";

/** How often the daemon folds the write-ahead log back into memory.db. */
export const CHECKPOINT_INTERVAL_MS = 60_000;

/**
 * The daemon checkpoints memory.db on a timer instead of inside whichever write crosses SQLite's 1,000-page
 * mark: that write (a job claim in the scheduler's tick, a turn's commit) otherwise pays for the checkpoint's
 * fsync — bench/scheduler measured a tick's p99 at ~10 ms with automatic checkpoints and ~1 ms without.
 * PASSIVE never waits for readers. A one-shot CLI keeps SQLite's automatic checkpoints.
 */
export function startBackgroundCheckpoints(
  db: SqlDatabase,
  opts: { intervalMs?: number; onError?: (err: Error) => void } = {},
): { checkpoint(): void; stop(): void } {
  db.exec("PRAGMA wal_autocheckpoint = 0");
  const checkpoint = () => {
    try {
      db.exec("PRAGMA wal_checkpoint(PASSIVE)");
    } catch (err) {
      opts.onError?.(err as Error);
    }
  };
  const timer = setInterval(checkpoint, opts.intervalMs ?? CHECKPOINT_INTERVAL_MS);
  // The daemon's server keeps it alive; this timer alone must not.
  (timer as { unref?: () => void }).unref?.();
  return {
    checkpoint,
    stop() {
      clearInterval(timer);
      checkpoint();
    },
  };
}
