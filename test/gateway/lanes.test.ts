import { describe, expect, test } from "bun:test";
import { createLanes } from "../../src/gateway/lanes.ts";

/** A task that starts, records it, and finishes only when released. */
function gate() {
  let release!: () => void;
  const done = new Promise<void>((r) => {
    release = r;
  });
  return { done, release };
}

describe("lanes", () => {
  test("one lane runs its tasks strictly in order", async () => {
    const lanes = createLanes();
    const order: string[] = [];
    const first = gate();
    const a = lanes.run("s1", async () => {
      order.push("a:start");
      await first.done;
      order.push("a:end");
    });
    const b = lanes.run("s1", async () => {
      order.push("b:start");
    });
    await Promise.resolve();
    expect(order).toEqual(["a:start"]);
    first.release();
    await Promise.all([a, b]);
    expect(order).toEqual(["a:start", "a:end", "b:start"]);
  });

  test("different lanes overlap", async () => {
    const lanes = createLanes();
    const blocker = gate();
    const started: string[] = [];
    const a = lanes.run("s1", async () => {
      started.push("s1");
      await blocker.done;
    });
    const b = lanes.run("s2", async () => {
      started.push("s2");
    });
    await b;
    expect(started).toEqual(["s1", "s2"]);
    expect(lanes.active).toBe(1);
    blocker.release();
    await a;
  });

  test("a failed task does not block the next one", async () => {
    const lanes = createLanes();
    const failed = lanes.run("s1", async () => {
      throw new Error("boom");
    });
    const next = lanes.run("s1", async () => "ran");
    await expect(failed).rejects.toThrow("boom");
    expect(await next).toBe("ran");
  });
});
