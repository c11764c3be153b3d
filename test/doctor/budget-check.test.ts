import { expect, test } from "bun:test";
import { budgetRow } from "../../src/doctor/budget-check.ts";
import { createBudget } from "../../src/usage/budget.ts";
import { inMemoryNotices } from "../../src/usage/budget-notices.ts";
import { fakeUsageLedger } from "../fake/usage-ledger.ts";

const NOW = Date.parse("2026-05-04T08:00:00Z");

function rowFor(budget: { daily_usd?: number; monthly_usd?: number } | undefined, spentMicros: number) {
  const ledger = fakeUsageLedger();
  ledger.add({ at: NOW - 1000, costMicros: spentMicros });
  const config = { fermix_core: { personalization: { timezone: "Europe/Berlin" }, budget } };
  return budgetRow(
    createBudget({ ledger: () => ledger, config: () => config, now: () => NOW, notices: inMemoryNotices() }).status(),
  );
}

test("no budget set: an ok row with what was spent", () => {
  expect(rowFor(undefined, 250_000)).toEqual({
    id: "budget",
    title: "budget",
    status: "ok",
    detail: "no budget set; $0.25 today, $0.25 this month",
  });
});

test("from 80 % a warning, at 100 % a failure, each with the key to raise and the reset", () => {
  expect(rowFor({ daily_usd: 1, monthly_usd: 20 }, 500_000)).toMatchObject({
    status: "ok",
    detail: "$0.50 of $1.00 today, $0.50 of $20.00 this month",
  });
  expect(rowFor({ daily_usd: 1 }, 850_000)).toMatchObject({
    status: "warn",
    fix: "raise [fermix_core.budget] daily_usd in config.toml, or wait until 2026-05-05 00:00 Europe/Berlin",
  });
  expect(rowFor({ monthly_usd: 1 }, 1_000_000)).toEqual({
    id: "budget",
    title: "budget",
    status: "fail",
    detail: "$1.00 of $1.00 this month — new turns are refused",
    fix: "raise [fermix_core.budget] monthly_usd in config.toml, or wait until 2026-06-01 00:00 Europe/Berlin",
  });
});
