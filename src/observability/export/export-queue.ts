import { createBackoff } from "../../net/backoff.ts";

/**
 * A bounded queue sending batches beside the work that fills it: `push` never waits and never throws. Past
 * `limit` the oldest item is dropped and counted; one batch is in flight at a time, each bounded by
 * `timeoutMs`, so a collector that accepts and never answers costs one timed-out request, never a turn. After a
 * failed batch the next goes no sooner than the shared backoff rule allows (FAILED_BACKOFF: 1 s doubling to
 * 5 min, with jitter; a success resets it), so a collector that is down is not sent a batch on every push.
 */
export type ExportQueueOptions<T> = {
  batchSize: number;
  intervalMs: number;
  limit: number;
  timeoutMs: number;
  send: (batch: T[], signal: AbortSignal) => Promise<void>;
  /** A batch that failed (it is not retried: traces are best effort) and the first success after failures. */
  onError?: (err: Error) => void;
  onRecovered?: () => void;
  /** The clock the backoff after a failure is measured on (tests move it by hand). */
  now?: () => number;
};

export const FAILED_BACKOFF = { initialMs: 1_000, maxMs: 5 * 60_000 };

export type ExportQueueStats = {
  /** The last batch failed (cleared by the next success). */
  failing: boolean;
  queued: number;
  sent: number;
  dropped: number;
  failedBatches: number;
  lastError?: string;
};

export function createExportQueue<T>(o: ExportQueueOptions<T>) {
  let items: T[] = [];
  let inFlight: Promise<void> | undefined;
  let soon: ReturnType<typeof setTimeout> | undefined;
  let failing = false;
  const now = o.now ?? Date.now;
  const backoff = createBackoff(FAILED_BACKOFF);
  // While failing: no batch goes out by itself before this (drain, at shutdown, still tries).
  let resumeAt = 0;
  const stats: Omit<ExportQueueStats, "failing"> = { queued: 0, sent: 0, dropped: 0, failedBatches: 0 };
  // Unref'd: a timer of its own never keeps a finished CLI process alive.
  const timer = setInterval(() => automatic(), o.intervalMs);
  timer.unref?.();

  const automatic = () => {
    if (failing && now() < resumeAt) return;
    flush();
  };

  const flush = (): Promise<void> | undefined => {
    if (inFlight || !items.length) return inFlight;
    const batch = items.slice(0, o.batchSize);
    items = items.slice(batch.length);
    const controller = new AbortController();
    const deadline = setTimeout(() => controller.abort(new Error(`no answer within ${o.timeoutMs} ms`)), o.timeoutMs);
    deadline.unref?.();
    inFlight = o
      .send(batch, controller.signal)
      .then(() => {
        stats.sent += batch.length;
        if (failing) o.onRecovered?.();
        failing = false;
        backoff.reset();
      })
      .catch((err: unknown) => {
        const error = controller.signal.aborted
          ? (controller.signal.reason as Error)
          : err instanceof Error
            ? err
            : new Error(String(err));
        stats.failedBatches++;
        stats.lastError = error.message;
        if (!failing) o.onError?.(error);
        failing = true;
        resumeAt = now() + backoff.next();
      })
      .finally(() => {
        clearTimeout(deadline);
        inFlight = undefined;
        if (items.length >= o.batchSize) schedule();
      });
    return inFlight;
  };

  const schedule = () => {
    if (soon) return;
    soon = setTimeout(() => {
      soon = undefined;
      automatic();
    }, 0);
    soon.unref?.();
  };

  return {
    push(item: T): void {
      items.push(item);
      if (items.length > o.limit) {
        items.shift();
        stats.dropped++;
      }
      if (items.length >= o.batchSize) schedule();
    },
    /** Sends what is queued, batch by batch, until empty or `withinMs` has passed; then stops the timer. */
    async drain(withinMs: number): Promise<void> {
      clearInterval(timer);
      const until = Date.now() + withinMs;
      while ((items.length || inFlight) && Date.now() < until) {
        const pending = flush();
        if (!pending) break;
        let expired: ReturnType<typeof setTimeout> | undefined;
        await Promise.race([
          pending,
          new Promise<void>((r) => {
            expired = setTimeout(r, Math.max(0, until - Date.now()));
          }),
        ]);
        clearTimeout(expired);
      }
    },
    stats: (): ExportQueueStats => ({ ...stats, failing, queued: items.length }),
  };
}
