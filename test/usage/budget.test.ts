import { describe, expect, test } from "bun:test";
import { join } from "node:path";
import type { Config } from "../../src/config/schema.ts";
import { createBudget } from "../../src/usage/budget.ts";
import { BudgetExceeded } from "../../src/usage/budget-contract.ts";
import { createNoticeMemory, inMemoryNotices } from "../../src/usage/budget-notices.ts";
import { GUEST_REFUSAL } from "../../src/usage/budget-sentence.ts";
import { fakeUsageLedger } from "../fake/usage-ledger.ts";
import { tempHome } from "../fixture/home.ts";

// 10:00 in Berlin on 2026-05-04; the Berlin day began at 22:00 UTC the evening before.
const NOW = Date.parse("2026-05-04T08:00:00Z");
const zoned = (budget: NonNullable<Config["fermix_core"]>["budget"]): Config => ({
  fermix_core: { personalization: { timezone: "Europe/Berlin" }, budget },
});

function setup(budget: NonNullable<Config["fermix_core"]>["budget"]) {
  const ledger = fakeUsageLedger();
  let config = zoned(budget);
  const b = createBudget({ ledger: () => ledger, config: () => config, now: () => NOW, notices: inMemoryNotices() });
  const setConfig = (c: Config) => {
    config = c;
  };
  return { ledger, budget: b, setConfig };
}

const refusal = (run: () => void) => {
  try {
    run();
  } catch (err) {
    if (BudgetExceeded.is(err)) return err;
    throw err;
  }
  return undefined;
};

describe("budgets", () => {
  test("spend counts from the owner's midnight: a call at 23:30 Berlin yesterday is not today's", () => {
    const { ledger, budget } = setup({ daily_usd: 1, monthly_usd: 10 });
    ledger.add({ at: Date.parse("2026-05-03T21:30:00Z"), costMicros: 700_000 });
    ledger.add({ at: Date.parse("2026-05-03T22:30:00Z"), costMicros: 300_000 });
    const status = budget.status();
    expect(status.daily.spentUsd).toBeCloseTo(0.3);
    expect(status.monthly.spentUsd).toBeCloseTo(1.0);
    expect(status.daily.label).toBe("2026-05-04");
    expect(refusal(() => budget.guard({ trust: "operator", midTurn: false }))).toBeUndefined();
  });

  test("at the limit the owner's refusal names spend, limit, reset and key; a guest is told none of it", () => {
    const { ledger, budget } = setup({ daily_usd: 0.5 });
    ledger.add({ at: NOW - 60_000, costMicros: 600_000 });
    const owner = refusal(() => budget.guard({ trust: "operator", midTurn: false }));
    expect(owner?.message).toBe(
      "The daily budget is used up: $0.60 spent of $0.50 today, so new turns are refused before any model request. " +
        "It resets at 2026-05-05 00:00 Europe/Berlin. To raise it, set [fermix_core.budget] daily_usd in config.toml (it applies at once).",
    );
    expect(owner?.data.scope).toBe("daily");
    const guest = refusal(() => budget.guard({ trust: "guest", midTurn: true }));
    expect(guest?.message).toBe(GUEST_REFUSAL);
    expect(guest?.message).not.toContain("$");
  });

  test("a raised limit applies at the next check; the month's budget refuses on its own", () => {
    const { ledger, budget, setConfig } = setup({ daily_usd: 0.5 });
    ledger.add({ at: NOW - 60_000, costMicros: 600_000 });
    expect(refusal(() => budget.guard({ trust: "operator", midTurn: false }))).toBeDefined();
    setConfig(zoned({ daily_usd: 5 }));
    expect(refusal(() => budget.guard({ trust: "operator", midTurn: false }))).toBeUndefined();
    setConfig(zoned({ daily_usd: 5, monthly_usd: 0.6 }));
    const month = refusal(() => budget.guard({ trust: "operator", midTurn: true }));
    expect(month?.data.scope).toBe("monthly");
    expect(month?.message).toContain("this turn stopped before its next model call");
    expect(month?.message).toContain("It resets at 2026-06-01 00:00 Europe/Berlin");
  });

  test("an unpriced model counts nothing but does not hide what the priced calls cost", () => {
    const { ledger, budget } = setup({ daily_usd: 1 });
    ledger.add({ at: NOW - 1000, model: "mystery", costMicros: null });
    ledger.add({ at: NOW - 1000, costMicros: 1_200_000 });
    expect(budget.status().daily).toMatchObject({ unpriced: true });
    expect(budget.status().daily.spentUsd).toBeCloseTo(1.2);
    expect(refusal(() => budget.guard({ trust: "operator", midTurn: false }))).toBeDefined();
  });

  test("a job's max_usd counts that job's calls since its run started", () => {
    const { ledger, budget } = setup(undefined);
    const run = { jobId: "job_a", jobName: "digest", maxUsd: 0.1, since: NOW - 5000 };
    ledger.add({ at: NOW - 9000, jobId: "job_a", costMicros: 500_000 });
    ledger.add({ at: NOW - 1000, jobId: "job_b", costMicros: 500_000 });
    expect(refusal(() => budget.guard({ trust: "operator", midTurn: true, run }))).toBeUndefined();
    ledger.add({ at: NOW - 1000, jobId: "job_a", costMicros: 100_000 });
    const stopped = refusal(() => budget.guard({ trust: "operator", midTurn: true, run }));
    expect(stopped?.data.scope).toBe("job_run");
    expect(stopped?.message).toContain('job "digest"');
    expect(stopped?.message).toContain("max_usd $0.10");
  });

  test("the 80 % notice comes once per budget and period, and again in the next period", () => {
    const ledger = fakeUsageLedger();
    let now = NOW;
    const notices = inMemoryNotices();
    const budget = createBudget({
      ledger: () => ledger,
      config: () => zoned({ daily_usd: 1 }),
      now: () => now,
      notices,
    });
    ledger.add({ at: now - 1000, costMicros: 790_000 });
    expect(budget.takeNotices()).toEqual([]);
    ledger.add({ at: now - 500, costMicros: 20_000 });
    const [notice, ...rest] = budget.takeNotices();
    expect(rest).toEqual([]);
    expect(notice).toBe(
      "fermix: 81 % of the daily budget is spent ($0.81 of $1.00 today); at 100 % new turns are refused until 2026-05-05 00:00 Europe/Berlin. [fermix_core.budget] daily_usd in config.toml sets it.",
    );
    expect(budget.takeNotices()).toEqual([]);
    now += 86_400_000;
    ledger.add({ at: now - 1000, costMicros: 900_000 });
    expect(budget.takeNotices()).toHaveLength(1);
  });

  test("given notices are remembered in a file, so a new process does not repeat them", async () => {
    await using home = tempHome();
    home.writeConfig("");
    const file = join(home.home, "budget-notices.json");
    const ledger = fakeUsageLedger();
    ledger.add({ at: NOW - 1000, costMicros: 900_000 });
    const make = () =>
      createBudget({
        ledger: () => ledger,
        config: () => zoned({ daily_usd: 1 }),
        now: () => NOW,
        notices: createNoticeMemory(file),
      });
    expect(make().takeNotices()).toHaveLength(1);
    expect(make().takeNotices()).toEqual([]);
  });

  test("no budget set: nothing is refused and nothing noticed", () => {
    const { ledger, budget } = setup(undefined);
    ledger.add({ at: NOW - 1000, costMicros: 99_000_000 });
    expect(refusal(() => budget.guard({ trust: "operator", midTurn: false }))).toBeUndefined();
    expect(budget.takeNotices()).toEqual([]);
  });

  test("without a limit nothing is summed before a call and no notice is due; the status still sums the spend", () => {
    const ledger = fakeUsageLedger();
    const sums: string[] = [];
    const counting = {
      summarize: (q: Parameters<typeof ledger.summarize>[0]) => {
        sums.push(q.by ?? "");
        return ledger.summarize(q);
      },
    };
    const config = () => zoned(undefined);
    const budget = createBudget({ ledger: () => counting, config, now: () => NOW, notices: inMemoryNotices() });
    ledger.add({ at: NOW - 1000, costMicros: 99_000_000 });
    expect(refusal(() => budget.guard({ trust: "operator", midTurn: true }))).toBeUndefined();
    expect(budget.takeNotices()).toEqual([]);
    expect(sums).toEqual([]);
    // fermix usage and the Usage page read the status itself.
    expect(budget.status().daily.spentUsd).toBeCloseTo(99);
  });
});
