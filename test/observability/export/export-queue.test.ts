import { describe, expect, test } from "bun:test";
import { createExportQueue } from "../../../src/observability/export/export-queue.ts";

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
});
