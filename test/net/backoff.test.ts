import { expect, test } from "bun:test";
import { createBackoff } from "../../src/net/backoff.ts";

test("waits grow by the factor to the cap, with jitter below the ceiling, and a success starts over", () => {
  const top = createBackoff({ initialMs: 250, maxMs: 5_000 }, () => 0);
  expect([1, 2, 3, 4, 5, 6, 7].map(() => top.next())).toEqual([250, 500, 1000, 2000, 4000, 5000, 5000]);
  expect(top.failures).toBe(7);
  top.reset();
  expect(top.next()).toBe(250);
  const low = createBackoff({ initialMs: 1_000, maxMs: 8_000, jitter: 0.5 }, () => 1);
  expect([low.next(), low.next(), low.next(), low.next(), low.next()]).toEqual([500, 1000, 2000, 4000, 4000]);
});
