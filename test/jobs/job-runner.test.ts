import { describe, expect, test } from "bun:test";
import type { TurnInput, TurnResult } from "../../src/agent/turn.ts";
import type { Caller } from "../../src/capabilities/caller.ts";
import { FermixError } from "../../src/error.ts";
import { createJobRunner, deliveryMessage, type JobRunnerDeps, SILENT_MARKER } from "../../src/jobs/job-runner.ts";
import { createJobService } from "../../src/jobs/job-service.ts";
import type { JobDraft } from "../../src/jobs/job-types.ts";
import type { Route } from "../../src/providers/routes.ts";
import { draft, MINUTE, operatorCli, storeWithClock, T0 } from "./_fixture.ts";

const route = { descriptor: { id: "openai" }, model: "gpt-test", effort: "low" } as unknown as Route;
const quiet = { info() {}, warn() {} };
type Turn = (input: TurnInput & { caller: Caller }) => Promise<TurnResult>;
const answer = (response: string): TurnResult => ({
  response,
  provider: "openai",
  model: "gpt-test",
  turnId: "turn_1",
});

function setup(turn: Turn, over: Partial<JobRunnerDeps> = {}, job: Partial<JobDraft> = {}) {
  const s = storeWithClock();
  const seen: Array<TurnInput & { caller: Caller }> = [];
  const runner = createJobRunner({
    store: s.store,
    turn: (input) => {
      seen.push(input);
      return turn(input);
    },
    routes: () => [route],
    skill: async (name) =>
      name === "triage"
        ? { instructions: "Triage carefully.", allowedTools: ["web_fetch", "memory_recall"] }
        : undefined,
    deliver: async () => ({ status: "failed", error: "no telegram channel is running" }),
    now: s.now,
    log: quiet,
    sleep: () => Promise.resolve(),
    ...over,
  });
  const created = s.store.create(draft(job), { ...operatorCli, nextRunAt: T0 + 15 * MINUTE });
  const claim = s.store.claim({ jobId: created.id, trigger: "schedule", nextRunAt: T0 + 15 * MINUTE });
  if (!claim.ok) throw new Error("claim failed");
  return { ...s, runner, job: claim.job, run: claim.run, seen };
}

/** A turn that reports its prompt and usage like runTurn does, then answers. */
const answering =
  (text: string, opts: { tools?: Array<{ ok: boolean }> } = {}): Turn =>
  async (input) => {
    input.job?.onPrompt?.("SYSTEM PROMPT", input.text);
    input.job?.onUsage?.({ inputTokens: 120, outputTokens: 30 });
    for (const t of opts.tools ?? []) {
      input.job?.onToolStart?.("web_fetch");
      input.job?.onToolExecution?.({ name: "web_fetch", durationMs: 5, ok: t.ok });
    }
    return answer(text);
  };

describe("job runner", () => {
  test("an isolated run under the creator's trust: its own session, the job's framing, a full record", async () => {
    const { runner, store, job, run, seen } = setup(
      answering("The build is green.", { tools: [{ ok: true }, { ok: false }] }),
    );
    await runner.execute(job, run);
    const input = seen[0]!;
    expect(input.key).toEqual({ channel: "cron", chat: run.sessionId });
    expect(run.sessionId).toStartWith(`cron_${job.id}_`);
    expect(input.caller).toEqual({ trust: "operator", local: false, attended: false, jobId: job.id });
    expect(input.text).toBe(job.taskPrompt);
    expect(input.job!.instructions).toContain("answer exactly [SILENT]");
    expect(input.job!.instructions).toContain(`- name: check the build (id ${job.id})`);
    expect(input.job!.instructions).toContain("- today: Tuesday, 1 December 2026 (Europe/Berlin)");
    expect(input.job!.router).toEqual({ retryAttempts: 0 });
    expect(input.job!.allowedTools).toBeUndefined();

    const done = store.getRun(run.id)!;
    expect(done).toMatchObject({
      status: "ok",
      finalResponse: "The build is green.",
      error: null,
      tokenUsage: { input: 120, output: 30, total: 150 },
      toolFailures: 1,
      deliveryStatus: "sent",
      promptSnapshot: `SYSTEM:\nSYSTEM PROMPT\n---\nUSER:\n${job.taskPrompt}`,
    });
    expect(done.configSnapshot).toMatchObject({
      job_id: job.id,
      task_prompt: job.taskPrompt,
      schedule_expr: "every 15 minutes",
      timeout_seconds: null,
      trust: "operator",
      route_used: { provider: "openai", model: "gpt-test", reasoning_effort: "low" },
    });
    expect(store.get(job.id)).toMatchObject({ state: "scheduled", lastStatus: "ok", lastError: null });
  });

  test("[SILENT] as the whole answer is recorded but not delivered", async () => {
    const { runner, store, job, run } = setup(answering(`  ${SILENT_MARKER}\n`));
    await runner.execute(job, run);
    expect(store.getRun(run.id)).toMatchObject({ status: "ok", deliveryStatus: "skipped" });
  });

  test("a failure is delivered too, and a delivery that fails is recorded on the run", async () => {
    const { runner, store, job, run } = setup(
      async () => {
        throw new FermixError("provider_rejected", "the model does not exist");
      },
      {},
      { deliveryMode: "channel", deliveryTarget: { platform: "telegram", chat_id: "42" } },
    );
    await runner.execute(job, run);
    const settled = store.getRun(run.id)!;
    expect(settled).toMatchObject({
      status: "error",
      error: "the model does not exist",
      deliveryStatus: "failed",
      deliveryError: "no telegram channel is running",
    });
    expect(deliveryMessage(job, settled)).toBe(
      `Scheduled job "check the build" finished with error.\nRun ID: ${run.id}\nError: the model does not exist`,
    );
    expect(store.get(job.id)).toMatchObject({ lastStatus: "error", lastError: "the model does not exist" });
  });

  test("origin delivery to a CLI session waits for that session's next ask", async () => {
    const s = storeWithClock();
    const service = createJobService({
      db: s.db,
      role: "oneshot",
      config: () => ({}),
      now: s.now,
      log: quiet,
      turn: answering("Reminder: call the plumber."),
      routes: () => [route],
      skill: async () => undefined,
    });
    const job = s.store.create(draft({ deliveryMode: "origin" }), { ...operatorCli, nextRunAt: T0 + MINUTE });
    const started = service.runNow(job.id);
    if (!started.ok) throw new Error("not started");
    await started.done;
    const pending = service.store.pendingDeliveries({ channel: "cli", chat: "s1" });
    expect(pending.map((p) => deliveryMessage(p.job, p.run))).toEqual(["Reminder: call the plumber."]);
    expect(service.store.pendingDeliveries({ channel: "cli", chat: "other" })).toEqual([]);
  });

  test("the wall clock: a run that does not finish in time ends as timeout", async () => {
    const hung: Turn = (input) =>
      new Promise((_, reject) => input.signal!.addEventListener("abort", () => reject(input.signal!.reason)));
    const { runner, store, job, run } = setup(hung, { defaultTimeoutMs: 50 });
    await runner.execute(job, run);
    expect(store.getRun(run.id)).toMatchObject({ status: "timeout", error: "wall-clock timeout after 50ms" });
    expect(store.get(job.id)!.lastStatus).toBe("timeout");
  });

  test("the inactivity watchdog fails a run whose loop stops making progress, but not while a tool runs", async () => {
    const stalls: Turn = (input) =>
      new Promise((_, reject) => input.signal!.addEventListener("abort", () => reject(input.signal!.reason)));
    const stalled = setup(stalls, {}, { inactivityTimeoutSeconds: 1 });
    await stalled.runner.execute(stalled.job, stalled.run);
    expect(stalled.store.getRun(stalled.run.id)).toMatchObject({
      status: "timeout",
      error: "inactivity timeout after 1000ms",
    });

    // A tool that runs longer than the window is progress: the watchdog waits for it to end.
    let release!: () => void;
    const toolDone = new Promise<void>((resolve) => {
      release = resolve;
    });
    const longTool: Turn = async (input) => {
      input.job?.onToolStart?.("shell");
      await toolDone;
      input.job?.onToolExecution?.({ name: "shell", durationMs: 1500, ok: true });
      return answer("built");
    };
    const busy = setup(longTool, {}, { inactivityTimeoutSeconds: 1 });
    const running = busy.runner.execute(busy.job, busy.run);
    // Past the 1 s window while the tool is still running; the deadline is only the watchdog's own.
    await new Promise((resolve) => setTimeout(resolve, 1500));
    release();
    await running;
    expect(busy.store.getRun(busy.run.id)).toMatchObject({ status: "ok", finalResponse: "built" });
  });

  test("a provider that cannot be reached is retried before any tool ran, never after", async () => {
    const unreachable = () =>
      new FermixError("provider_unavailable", "connection to openai failed: refused", {
        vendor_code: "connection_unavailable",
      });
    let calls = 0;
    const flaky: Turn = async (input) => {
      calls++;
      if (calls < 3) throw unreachable();
      return answering("ok after waking")(input);
    };
    const waits: number[] = [];
    const first = setup(flaky, { sleep: async (ms) => void waits.push(ms) });
    await first.runner.execute(first.job, first.run);
    expect(calls).toBe(3);
    // The shared backoff rule: 2 s then 4 s ceilings, each drawn up to 20 % below.
    expect(waits).toHaveLength(2);
    expect(waits[0]).toBeWithin(1600, 2001);
    expect(waits[1]).toBeWithin(3200, 4001);
    expect(first.store.getRun(first.run.id)!.status).toBe("ok");

    let toolCalls = 0;
    const afterTool: Turn = async (input) => {
      toolCalls++;
      input.job?.onToolStart?.("shell");
      throw unreachable();
    };
    const second = setup(afterTool);
    await second.runner.execute(second.job, second.run);
    expect(toolCalls).toBe(1);
    expect(second.store.getRun(second.run.id)).toMatchObject({ status: "error" });
  });

  test("a bound skill narrows the tools (intersected with the job's, never widened) and frames the run", async () => {
    const { runner, job, run, seen } = setup(
      answering("done"),
      {},
      {
        skillName: "triage",
        allowedTools: ["web_fetch", "shell"],
      },
    );
    await runner.execute(job, run);
    expect(seen[0]!.job!.allowedTools).toEqual(["web_fetch"]);
    expect(seen[0]!.job!.instructions).toContain("## Skill\nTriage carefully.");
  });

  test("a skill that no longer exists fails the run with the reason", async () => {
    const { runner, store, job, run, seen } = setup(answering("done"), {}, { skillName: "gone" });
    await runner.execute(job, run);
    expect(seen).toHaveLength(0);
    expect(store.getRun(run.id)).toMatchObject({
      status: "error",
      error: 'the job is bound to the skill "gone", which no longer exists',
    });
  });
});
