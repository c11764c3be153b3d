import { createJobStore } from "../../src/jobs/job-store.ts";
import type { JobDraft } from "../../src/jobs/job-types.ts";
import { migrate } from "../../src/memory/db.ts";
import { openSqlite } from "../../src/runtime/sqlite.ts";

/** 2026-12-01T12:00:00Z: every test's starting "now". */
export const T0 = Date.UTC(2026, 11, 1, 12, 0, 0);
export const MINUTE = 60_000;

/** A job store on a fresh in-memory memory.db, with a clock the test moves by hand. */
export function storeWithClock(start = T0) {
  const db = openSqlite(":memory:");
  migrate(db);
  const clock = { now: start };
  const now = () => clock.now;
  return { db, clock, now, store: createJobStore(db, now) };
}

export function draft(over: Partial<JobDraft> = {}): JobDraft {
  return {
    name: "check the build",
    description: "",
    scheduleKind: "interval",
    scheduleExpr: "every 15 minutes",
    timezone: "Europe/Berlin",
    expiresAt: null,
    taskPrompt: "Check the build and say if it is red.",
    skillName: null,
    provider: null,
    model: null,
    timeoutSeconds: null,
    inactivityTimeoutSeconds: null,
    allowedTools: [],
    maxUsd: null,
    deliveryMode: "local",
    deliveryTarget: null,
    ...over,
  };
}

export const operatorCli = { trust: "operator" as const, createdIn: { channel: "cli", chat: "s1" } };
