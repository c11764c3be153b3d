import { Database } from "bun:sqlite";
import { describe, expect, test } from "bun:test";
import { migrate } from "../../src/memory/db.ts";
import { MIGRATIONS } from "../../src/memory/migrations.ts";
import type { SqlDatabase } from "../../src/runtime/sqlite.ts";
import { createUsageLedger } from "../../src/usage/ledger.ts";
import type { LedgerEntry } from "../../src/usage/ledger-contract.ts";
import { costOf, priceOf } from "../../src/usage/pricing.ts";

function freshDb(): SqlDatabase {
  const db = new Database(":memory:");
  db.exec("PRAGMA foreign_keys = ON");
  migrate(db as unknown as SqlDatabase);
  return db as unknown as SqlDatabase;
}

const T0 = Date.UTC(2026, 11, 1, 12, 0); // 2026-12-01 12:00 UTC

function entry(over: Partial<LedgerEntry> = {}): LedgerEntry {
  return {
    at: T0,
    sessionId: "s1",
    channel: "cli",
    provider: "openai",
    model: "gpt-5.5",
    kind: "main",
    inputTokens: 1000,
    cachedInputTokens: 200,
    outputTokens: 50,
    reasoningTokens: 10,
    costMicros: 1234,
    billing: "api",
    ...over,
  };
}

describe("the usage ledger", () => {
  test("sums calls, and a group with one unpriced call has an unknown cost", () => {
    const ledger = createUsageLedger(freshDb());
    ledger.recordCall(entry());
    ledger.recordCall(entry({ at: T0 + 1, costMicros: 766 }));
    ledger.recordCall(entry({ at: T0 + 2, model: "mystery", costMicros: null, sessionId: "s2", channel: "telegram" }));
    const all = ledger.summarize({});
    expect(all.total).toEqual({
      calls: 3,
      inputTokens: 3000,
      cachedInputTokens: 600,
      outputTokens: 150,
      reasoningTokens: 30,
      costUsd: null,
    });
    const byModel = ledger.summarize({ by: "model" });
    expect(byModel.rows.map((r) => [r.group, r.calls, r.costUsd])).toEqual([
      ["openai/gpt-5.5", 2, 0.002],
      ["openai/mystery", 1, null],
    ]);
    expect(ledger.summarize({ sessionId: "s1" }).total.costUsd).toBe(0.002);
    expect(ledger.summarize({ by: "channel" }).rows.map((r) => r.group)).toEqual(["cli", "telegram"]);
    expect(ledger.summarize({ since: T0 + 1, until: T0 + 2 }).total.calls).toBe(1);
  });

  test("days are the owner's: a call at 23:30 UTC is the next day in Berlin and the same day in New York", () => {
    const ledger = createUsageLedger(freshDb());
    const late = Date.UTC(2026, 11, 1, 23, 30);
    ledger.recordCall(entry({ at: late, provider: "openai" }));
    ledger.recordCall(entry({ at: late, provider: "anthropic", model: "claude-sonnet-4-6" }));
    expect(ledger.summarize({ by: "day", timezone: "Europe/Berlin" }).rows.map((r) => r.group)).toEqual(["2026-12-02"]);
    expect(ledger.summarize({ by: "day", timezone: "America/New_York" }).rows.map((r) => r.group)).toEqual([
      "2026-12-01",
    ]);
    const chart = ledger.dailyByProvider(2, "Europe/Berlin", Date.UTC(2026, 11, 2, 10));
    expect(chart.map((r) => [r.day, r.provider, r.calls])).toEqual([
      ["2026-12-02", "anthropic", 1],
      ["2026-12-02", "openai", 1],
    ]);
    expect(ledger.dailyByProvider(1, "Europe/Berlin", Date.UTC(2026, 11, 3, 10))).toEqual([]);
  });
});

describe("prices", () => {
  const usage = { inputTokens: 1_000_000, cachedInputTokens: 400_000, outputTokens: 100_000 };

  test("a config price for the exact model id wins over the built-in one; cached input has its own rate", () => {
    const overrides = { "openai/gpt-5.5": { input_per_mtok: 2, cached_input_per_mtok: 0.5, output_per_mtok: 10 } };
    // 600k × $2 + 400k × $0.5 + 100k × $10 per million = $1.20 + $0.20 + $1.00
    expect(costOf({ provider: "openai", model: "gpt-5.5", usage, plan: false }, overrides)).toMatchObject({
      costMicros: 2_400_000,
      billing: "api",
    });
    expect(priceOf("openai", "gpt-5.5", undefined)).toEqual({
      inputPerMtok: 5,
      cachedInputPerMtok: 0.5,
      outputPerMtok: 30,
    });
    expect(priceOf("openai", "gpt-5.5-2026-01-01", undefined)).toBeUndefined();
  });

  test("an unknown model costs null, Ollama 0, a signed-in plan 0 and marked plan", () => {
    expect(costOf({ provider: "openai", model: "some-unknown-model", usage, plan: false }, undefined)).toEqual({
      costMicros: null,
      billing: "api",
    });
    expect(costOf({ provider: "ollama", model: "llama3.2", usage, plan: false }, undefined).costMicros).toBe(0);
    expect(costOf({ provider: "openai_codex", model: "gpt-5.5", usage, plan: true }, undefined)).toEqual({
      costMicros: 0,
      billing: "plan",
    });
  });
});

describe("migration 9", () => {
  test("rebuilds scheduled_jobs and job_runs so a run may be 'budget', keeping rows, indexes and the cascade", () => {
    const db = new Database(":memory:");
    db.exec("PRAGMA foreign_keys = ON");
    for (let n = 0; n < 8; n++) db.exec(MIGRATIONS[n]!);
    db.exec("PRAGMA user_version = 8");
    db.exec(`INSERT INTO scheduled_jobs (id, name, schedule_kind, schedule_expr, timezone, task_prompt, state,
      created_by_trust, created_by_channel, created_by_chat, created_at, updated_at)
      VALUES ('job_1', 'n', 'cron', '* * * * *', 'UTC', 'do it', 'scheduled', 'operator', 'cli', 'c', 1, 1)`);
    db.exec(`INSERT INTO job_runs (id, job_id, session_id, trigger, status, claimed_at, created_at, updated_at)
      VALUES ('run_1', 'job_1', 'cron_x', 'schedule', 'ok', 1, 1, 1)`);
    migrate(db as unknown as SqlDatabase);
    expect((db.query("PRAGMA user_version").get() as any).user_version).toBe(MIGRATIONS.length);
    expect((db.query("PRAGMA foreign_keys").get() as any).foreign_keys).toBe(1);
    expect(db.query("SELECT id FROM job_runs").all()).toEqual([{ id: "run_1" }]);
    // The rebuilt table gains a job's own max_usd per run; a job from before has none.
    expect(db.query("SELECT id, max_usd FROM scheduled_jobs").all()).toEqual([{ id: "job_1", max_usd: null }]);
    expect(() => db.exec("UPDATE scheduled_jobs SET max_usd = 0")).toThrow();
    db.exec("UPDATE job_runs SET status = 'budget' WHERE id = 'run_1'");
    db.exec("UPDATE scheduled_jobs SET last_status = 'budget' WHERE id = 'job_1'");
    const indexes = (
      db
        .query(
          "SELECT name FROM sqlite_master WHERE type = 'index' AND name LIKE 'job%' OR name LIKE 'scheduled%' OR name LIKE 'usage%'",
        )
        .all() as any[]
    ).map((r) => r.name);
    expect(indexes).toEqual(
      expect.arrayContaining([
        "job_runs_by_job",
        "job_runs_active",
        "scheduled_jobs_due",
        "scheduled_jobs_expiring",
        "usage_ledger_by_time",
        "usage_ledger_by_session",
      ]),
    );
    expect(() => db.exec("UPDATE job_runs SET status = 'nonsense'")).toThrow();
    db.exec("DELETE FROM scheduled_jobs WHERE id = 'job_1'");
    expect(db.query("SELECT COUNT(*) AS n FROM job_runs").get()).toEqual({ n: 0 });
  });
});
