import { describe, expect, test } from "bun:test";
import { codingRunTools } from "../../src/capabilities/builtins/coding-runs.ts";
import type { ToolContext } from "../../src/capabilities/tool.ts";
import type { Sleep } from "../../src/harness/delivery-retry.ts";
import type { HarnessService } from "../../src/harness/harness-service-contract.ts";
import { createHarnessStore } from "../../src/harness/harness-store.ts";
import { createResultDelivery } from "../../src/harness/result-delivery.ts";
import { migrate } from "../../src/memory/db.ts";
import { openSqlite } from "../../src/runtime/sqlite.ts";

/*
 * A finished run's result goes back to its chat; a failed send is tried again with back-off (the shared rule of
 * src/net/backoff.ts), each attempt recorded on the run, the last failure stored and logged. The clock and the
 * waits are injected: nothing here sleeps.
 */

function world(opts: { failures: number }) {
  const db = openSqlite(":memory:");
  migrate(db);
  let clock = 1_000_000;
  const now = () => clock;
  const store = createHarnessStore(db, now);
  const sent: string[] = [];
  let sends = 0;
  const channel = (platform: string) =>
    platform === "telegram"
      ? {
          send: async (_chat: unknown, text: unknown) => {
            sends++;
            if (sends <= opts.failures) throw new Error(`telegram is down (${sends})`);
            sent.push((text as { markdown: string }).markdown);
            return [];
          },
        }
      : undefined;
  const waits: number[] = [];
  // Each wait moves the clock instead of passing time.
  const sleep: Sleep = async (ms) => {
    waits.push(ms);
    clock += ms;
  };
  const warnings: string[] = [];
  const delivery = (attempts?: number | (() => number), wait: Sleep = sleep, maxAgeMs?: number) =>
    createResultDelivery({
      store,
      channel,
      now,
      log: { warn: (m) => warnings.push(m) },
      sleep: wait,
      retry: { attempts, random: () => 0, ...(maxAgeMs ? { maxAgeMs } : {}) },
    });
  const finishedRun = () => {
    const id = `hr_${(0xa00000000000 + Math.floor(Math.random() * 1e9)).toString(16)}`;
    store.create({
      id,
      vendor: "codex",
      cwd: "/tmp/repo",
      prompt: "fix the bug",
      argv: ["codex", "exec"],
      params: {},
      progress: "quiet",
      origin: { channel: "telegram", chat: "4242" },
      startedAt: clock,
    });
    store.finish(id, { status: "completed", finalMessage: "Fixed the off-by-one." });
    return store.get(id)!;
  };
  return { store, sent, waits, warnings, delivery, finishedRun, now, sends: () => sends };
}

describe("coding-run result delivery", () => {
  test("delivery_max_attempts is read at each failure: lowering it mid-retry ends the retries at the new bound", async () => {
    const w = world({ failures: Number.POSITIVE_INFINITY });
    let bound = 10;
    const run = w.finishedRun();
    const d = w.delivery(
      () => bound,
      async (ms) => {
        w.waits.push(ms);
        bound = 3; // the owner edits config.toml while the result waits
      },
    );
    await d.deliver(run);
    expect(w.store.get(run.id)!.deliveryError).toContain("gave up after 3 attempts");
    expect(w.sends()).toBe(3);
  });

  test("a result older than delivery_max_age_hours is not tried again", async () => {
    const w = world({ failures: Number.POSITIVE_INFINITY });
    const run = w.finishedRun();
    // 5 s then 10 s waits: past a 12 s age limit after the third attempt.
    await w.delivery(20, undefined, 12_000).deliver(run);
    const after = w.store.get(run.id)!;
    expect(after.delivery).toBe("failed");
    expect(after.deliveryError).toContain("the result is too old to send");
    expect(w.sends()).toBe(3);
  });

  test("a send that fails twice is delivered on the third attempt, each attempt recorded", async () => {
    const w = world({ failures: 2 });
    const d = w.delivery();
    const run = w.finishedRun();
    await d.deliver(run);
    const after = w.store.get(run.id)!;
    expect(after.delivery).toBe("sent");
    expect(after.deliveryRetryAt).toBeUndefined();
    expect(after.deliveryAttempts.map((a) => a.status)).toEqual(["failed", "failed", "sent"]);
    expect(after.deliveryAttempts[0]!.error).toContain("telegram is down (1)");
    expect(after.deliveryAttempts[1]!.error).toContain("telegram is down (2)");
    // The shared back-off rule (5 s doubling; no jitter with random = 0), and the clock moved by exactly that.
    expect(w.waits).toEqual([5_000, 10_000]);
    expect(after.deliveryAttempts.map((a) => a.at - after.deliveryAttempts[0]!.at)).toEqual([0, 5_000, 15_000]);
    expect(w.sent).toHaveLength(1);
    expect(w.sent[0]).toContain("Fixed the off-by-one.");
    expect(w.warnings.filter((m) => m.includes("delivery attempt"))).toHaveLength(2);
  });

  test("a send that always fails ends recorded as failed, logged, and shown by get_coding_run", async () => {
    const w = world({ failures: Number.POSITIVE_INFINITY });
    const run = w.finishedRun();
    await w.delivery(4).deliver(run);
    const after = w.store.get(run.id)!;
    expect(after.delivery).toBe("failed");
    expect(after.deliveryError).toContain("telegram is down (4)");
    expect(after.deliveryError).toContain("gave up after 4 attempts");
    expect(after.deliveryAttempts.map((a) => a.status)).toEqual(["failed", "failed", "failed", "failed"]);
    expect(w.sends()).toBe(4);
    expect(w.waits).toEqual([5_000, 10_000, 20_000]);
    expect(w.warnings.at(-1)).toContain(`coding run ${run.id}: its result was not delivered after 4 attempts`);

    const service = { get: (id: string) => w.store.get(id), list: () => w.store.list() } as unknown as HarnessService;
    const [list, get] = codingRunTools({ service: async () => service });
    const shown = JSON.parse(String(await get!.execute({ run_id: run.id }, {} as ToolContext)));
    expect(shown).toMatchObject({ delivery: "failed", delivery_error: after.deliveryError });
    expect(shown.delivery_attempts).toHaveLength(4);
    expect(String(await list!.execute({}, {} as ToolContext))).toContain('"delivery": "failed"');
  });

  test("a daemon that stops mid-retry leaves the delivery planned; the next one finishes it", async () => {
    const w = world({ failures: 1 });
    const run = w.finishedRun();
    let waiting!: () => void;
    const firstWait = new Promise<void>((resolve) => (waiting = resolve));
    // This daemon's wait only ends when it stops.
    const untilStopped: Sleep = (_ms, signal) => {
      waiting();
      return new Promise((resolve) => signal.addEventListener("abort", () => resolve(), { once: true }));
    };
    const first = w.delivery(undefined, untilStopped);
    const done = first.deliver(run);
    await firstWait;
    await first.stop();
    await done;
    const planned = w.store.get(run.id)!;
    expect(planned.delivery).toBe("retrying");
    expect(planned.deliveryRetryAt).toBe(w.now() + 5_000);
    expect(planned.deliveryError).toContain("telegram is down (1)");
    expect(w.store.dueDeliveries().map((r) => r.id)).toEqual([run.id]);

    const next = w.delivery();
    next.resume();
    await next.settled(run.id);
    const after = w.store.get(run.id)!;
    expect(after.delivery).toBe("sent");
    expect(after.deliveryAttempts.map((a) => a.status)).toEqual(["failed", "sent"]);
    expect(w.store.dueDeliveries()).toEqual([]);
    expect(w.sent).toHaveLength(1);
  });

  test("a CLI session's result is settled (waiting for its next ask) at the first attempt", async () => {
    const w = world({ failures: 0 });
    const run = w.finishedRun();
    const cli = w.store.create({ ...run, id: "hr_0000000000c1", origin: { channel: "cli", chat: "s" } });
    await w.delivery().deliver(cli);
    expect(w.store.get(cli.id)).toMatchObject({ delivery: "pending", deliveryAttempts: [{ status: "pending" }] });
    expect(w.waits).toEqual([]);
  });
});
