import { describe, expect, test } from "bun:test";
import { hasPendingDeliveries } from "../../src/jobs/pending-deliveries.ts";
import { draft, operatorCli, storeWithClock, T0 } from "./_fixture.ts";

describe("hasPendingDeliveries", () => {
  test("is true only while a run's answer waits for delivery", () => {
    const { db, store } = storeWithClock();
    expect(hasPendingDeliveries(db)).toBe(false);
    const job = store.create(draft({ deliveryMode: "origin" }), { ...operatorCli, nextRunAt: T0 });
    const claim = store.claim({ jobId: job.id, trigger: "manual", nextRunAt: null });
    if (!claim.ok) throw new Error(claim.reason);
    expect(hasPendingDeliveries(db)).toBe(false);
    store.finish(claim.run.id, { status: "ok", finalResponse: "done", deliveryStatus: "pending" });
    expect(hasPendingDeliveries(db)).toBe(true);
    store.delivered(claim.run.id, "sent");
    expect(hasPendingDeliveries(db)).toBe(false);
  });
});
