import { describe, expect, test } from "bun:test";
import { GATE_RECHECK_MS, reviewAfterTurns } from "../../src/agent/memory-review-subsystem.ts";
import type { TurnEvents } from "../../src/agent/turn-events.ts";
import type { Review, ReviewReport } from "../../src/memory/review-contract.ts";
import { createObservers } from "../../src/observability/observers.ts";
import type { Subsystem } from "../../src/subsystem.ts";

const HOUR = 3_600_000;

/** A daemon's turn_finished observers with a review whose gate answers `next()`, on a clock the test moves. */
function setup(next: (t: number) => ReviewReport) {
  let clock = 1_000_000;
  const asked: number[] = [];
  const warnings: string[] = [];
  const events = createObservers<TurnEvents>(() => {});
  const runner = {
    maybeRun: async () => {
      asked.push(clock);
      return next(clock);
    },
  } as unknown as Review;
  const review = { wanted: () => true, api: async () => runner } as unknown as Subsystem<Review>;
  reviewAfterTurns(events, review, { warn: (m: string) => warnings.push(m) } as never, () => clock);
  const turn = async (at: number) => {
    clock = at;
    await events.emit("turn_finished", {} as TurnEvents["turn_finished"]);
    // The gate is asked in the background: let it answer.
    for (let i = 0; i < 5; i++) await Promise.resolve();
  };
  return { turn, asked, warnings };
}

describe("the memory review's gate after turns", () => {
  test("turns before the time the gate answered with skip it, the first turn from then on asks it again", async () => {
    const due = 1_000_000 + 10_000;
    const { turn, asked } = setup((t) =>
      t < due
        ? { status: "skipped", reason: "not yet", nextAt: due }
        : { status: "skipped", reason: "not yet", nextAt: t + 24 * HOUR },
    );
    await turn(1_000_000);
    await turn(1_000_001);
    await turn(due - 1);
    expect(asked).toEqual([1_000_000]);
    await turn(due);
    expect(asked).toEqual([1_000_000, due]);
  });

  test("a far-off next time is asked again after the recheck interval: another process may have moved it", async () => {
    const { turn, asked } = setup((t) => ({ status: "skipped", reason: "not yet", nextAt: t + 24 * HOUR }));
    await turn(0);
    await turn(GATE_RECHECK_MS - 1);
    expect(asked).toEqual([0]);
    await turn(GATE_RECHECK_MS);
    expect(asked).toEqual([0, GATE_RECHECK_MS]);
  });

  test("a failed review is retried when it says, and its failure is logged", async () => {
    let failures = 0;
    const { turn, asked, warnings } = setup((t) =>
      failures++ === 0
        ? { status: "failed", error: "provider down", nextAt: t + 1_000 }
        : { status: "done", facts: 1, replaced: [], retired: [], files: [] },
    );
    await turn(0);
    await turn(999);
    await turn(1_000);
    expect(asked).toEqual([0, 1_000]);
    expect(warnings).toEqual(["memory review failed: provider down"]);
  });
});
