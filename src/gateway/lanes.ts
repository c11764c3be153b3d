import type { Lanes } from "./lanes-contract.ts";

/**
 * One FIFO lane per conversation: work in one lane runs strictly in arrival order, different lanes
 * run concurrently. A failed task does not block the ones queued behind it.
 */
export function createLanes(): Lanes {
  const tails = new Map<string, Promise<unknown>>();
  let active = 0;

  return {
    run<T>(lane: string, task: () => Promise<T>): Promise<T> {
      const previous = tails.get(lane) ?? Promise.resolve();
      const next = previous.then(
        () => guarded(task),
        () => guarded(task),
      );
      const tail = next.catch(() => {});
      tails.set(lane, tail);
      void tail.then(() => {
        if (tails.get(lane) === tail) tails.delete(lane);
      });
      return next;
    },
    async idle(): Promise<void> {
      while (tails.size) await Promise.all(tails.values());
    },
    get active() {
      return active;
    },
    get queued() {
      return tails.size;
    },
  };

  async function guarded<T>(task: () => Promise<T>): Promise<T> {
    active++;
    try {
      return await task();
    } finally {
      active--;
    }
  }
}
