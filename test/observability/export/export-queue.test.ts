import { describe, expect, test } from "bun:test";
import { createExportQueue, FAILED_BACKOFF } from "../../../src/observability/export/export-queue.ts";

describe("export queue", () => {
  test("full batches go out without waiting for the interval, in order", async () => {
    const sent: number[][] = [];
    const q = createExportQueue<number>({
      batchSize: 2,
      intervalMs: 3_600_000,
      limit: 10,
      timeoutMs: 5_000,
      send: async (b) => void sent.push(b),
    });
    for (const n of [1, 2, 3, 4, 5]) q.push(n);
    await q.drain(10_000);
    expect(sent).toEqual([[1, 2], [3, 4], [5]]);
    expect(q.stats()).toMatchObject({ sent: 5, dropped: 0, queued: 0 });
  });

  test("past the limit the oldest are dropped and counted", async () => {
    const sent: number[][] = [];
    const q = createExportQueue<number>({
      batchSize: 100,
      intervalMs: 3_600_000,
      limit: 3,
      timeoutMs: 5_000,
      send: async (b) => void sent.push(b),
    });
    for (const n of [1, 2, 3, 4, 5]) q.push(n);
    expect(q.stats()).toMatchObject({ queued: 3, dropped: 2 });
    await q.drain(10_000);
    expect(sent).toEqual([[3, 4, 5]]);
  });

  test("a send that never settles is abandoned at the timeout; push never waits", async () => {
    const errors: string[] = [];
    const q = createExportQueue<number>({
      batchSize: 1,
      intervalMs: 3_600_000,
      limit: 10,
      timeoutMs: 50,
      send: (_b, signal) => new Promise((_, reject) => signal.addEventListener("abort", () => reject(signal.reason))),
      onError: (e) => errors.push(e.message),
    });
    q.push(1);
    q.push(2);
    await q.drain(30_000);
    expect(errors).toEqual(["no answer within 50 ms"]);
    expect(q.stats()).toMatchObject({ failedBatches: 2, sent: 0, queued: 0 });
  });

  test("after a failed batch the next waits out the backoff, then goes", async () => {
    const clock = { t: 0 };
    const sent: number[][] = [];
    let calls = 0;
    let down = true;
    const failed = Promise.withResolvers<void>();
    const q = createExportQueue<number>({
      batchSize: 1,
      intervalMs: 3_600_000,
      limit: 10,
      timeoutMs: 5_000,
      now: () => clock.t,
      send: async (b) => {
        calls++;
        if (down) throw new Error("collector down");
        sent.push(b);
      },
      onError: () => failed.resolve(),
    });
    q.push(1);
    await failed.promise;
    // Inside the first wait (at most FAILED_BACKOFF.initialMs): a full batch does not go by itself. The queue
    // sends from a 0 ms timer; one set after it fires after it, so by then a send would have been made.
    clock.t += FAILED_BACKOFF.initialMs / 2;
    q.push(2);
    await new Promise((queued) => setTimeout(queued, 0));
    expect(calls).toBe(1);
    expect(q.stats()).toMatchObject({ failing: true, failedBatches: 1, queued: 1 });
    // Past it, the next push sends everything waiting.
    down = false;
    clock.t += FAILED_BACKOFF.initialMs;
    q.push(3);
    await new Promise((queued) => setTimeout(queued, 0));
    expect(calls).toBe(2);
    await q.drain(10_000);
    expect(sent).toEqual([[2], [3]]);
    expect(q.stats()).toMatchObject({ failing: false, failedBatches: 1, sent: 2 });
  });
});
