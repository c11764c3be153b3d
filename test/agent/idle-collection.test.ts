import { describe, expect, test } from "bun:test";
import { collectWhenIdle } from "../../src/agent/idle-collection.ts";
import type { TurnEvents } from "../../src/agent/turn-events.ts";
import { createObservers } from "../../src/observability/observers.ts";

const finished = {} as TurnEvents["turn_finished"];

/** Lanes whose running count the test sets; `checked` resolves when the collector next looks at them. */
function fakeLanes() {
  let signal: (() => void) | undefined;
  const lanes = {
    busy: 0,
    get active() {
      signal?.();
      return lanes.busy;
    },
    queued: 0,
    checked: () =>
      new Promise<void>((resolve) => {
        signal = resolve;
      }),
  };
  return lanes;
}

describe("collectWhenIdle", () => {
  test("a quiet spell after a turn finished collects once; a burst of turns collects once after the last", async () => {
    const events = createObservers<TurnEvents>(() => {});
    const lanes = fakeLanes();
    let collected = 0;
    let done: () => void = () => {};
    const collection = new Promise<void>((resolve) => {
      done = resolve;
    });
    collectWhenIdle(events, lanes, {
      quietMs: 20,
      collect: () => {
        collected++;
        done();
      },
    });
    expect(collected).toBe(0);
    for (let i = 0; i < 3; i++) await events.emit("turn_finished", finished);
    await collection;
    expect(collected).toBe(1);
  });

  test("a turn running when the quiet spell ends: no collection then; its own finish arms the next one", async () => {
    const events = createObservers<TurnEvents>(() => {});
    const lanes = fakeLanes();
    let collected = 0;
    collectWhenIdle(events, lanes, { quietMs: 1, collect: () => collected++ });
    lanes.busy = 1;
    let looked = lanes.checked();
    await events.emit("turn_finished", finished);
    // The check and the collection it decides on are one synchronous step: past the check, the decision is made.
    await looked;
    expect(collected).toBe(0);
    lanes.busy = 0;
    looked = lanes.checked();
    await events.emit("turn_finished", finished);
    await looked;
    expect(collected).toBe(1);
  });
});
