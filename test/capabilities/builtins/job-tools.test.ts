import { describe, expect, test } from "bun:test";
import { JOB_TOOLS } from "../../../src/capabilities/builtins/job-tools.ts";
import { BUILTIN_TOOLS } from "../../../src/capabilities/builtins/registry.ts";
import type { Caller } from "../../../src/capabilities/caller.ts";
import { createRegistry } from "../../../src/capabilities/registry.ts";
import type { ToolContext } from "../../../src/capabilities/tool.ts";
import type { Config } from "../../../src/config/schema.ts";
import { createJobService } from "../../../src/jobs/job-service.ts";
import { parseSchedule } from "../../../src/jobs/schedule.ts";
import { migrate } from "../../../src/memory/db.ts";
import type { ConversationKey } from "../../../src/memory/messages-contract.ts";
import { type Route, resolveRoutes } from "../../../src/providers/routes.ts";
import { openSqlite } from "../../../src/runtime/sqlite.ts";
import type { SkillCatalog } from "../../../src/skills/catalog.ts";

/** 2026-12-01T12:00:00Z; Berlin is on CET (UTC+1). */
const T0 = Date.UTC(2026, 11, 1, 12, 0, 0);
const OPERATOR: Caller = { trust: "operator", local: true, attended: true };
const GUEST: Caller = { trust: "guest", local: false, attended: true };
const OWNER_CHAT: ConversationKey = { channel: "cli", chat: "ses_1" };
const GUEST_CHAT: ConversationKey = { channel: "telegram", chat: "42" };
const quiet = { info() {}, warn() {} };
const fakeRoute = { descriptor: { id: "openai" }, model: "gpt-test", effort: "low" } as unknown as Route;
// Only OpenAI has a credential: pins resolve through the real routing catalog.
const ENV = { OPENAI_API_KEY: "sk-test-jobs-0123456789" };
const registry = createRegistry(BUILTIN_TOOLS);

function setup() {
  const db = openSqlite(":memory:");
  migrate(db);
  const clock = { now: T0 };
  const now = () => clock.now;
  const config = { fermix_core: { personalization: { timezone: "Europe/Berlin" } } } as Config;
  const turns: string[] = [];
  const service = createJobService({
    db,
    role: "oneshot",
    config: () => config,
    now,
    log: quiet,
    turn: async (input) => {
      turns.push(input.text);
      // The real turn reports its prompt as it starts; the run keeps it as its snapshot.
      input.job?.onPrompt?.("You run scheduled jobs.", input.text);
      return { response: "All green.", provider: "openai", model: "gpt-test", turnId: "turn_1" };
    },
    routes: (pin) =>
      pin ? resolveRoutes({}, ENV, { env: ENV, secretsDir: "/nonexistent" }, pin).slice(0, 1) : [fakeRoute],
    skill: async (name) => (name === "triage" ? { instructions: "Triage carefully." } : undefined),
  });
  const skills = {
    load: async () => ({ skills: [{ name: "triage" }], errors: [] }),
  } as unknown as SkillCatalog;
  const context = (caller: Caller, conversation: ConversationKey | undefined, extra: Partial<ToolContext> = {}) =>
    ({
      caller,
      conversation,
      signal: new AbortController().signal,
      now,
      config,
      notify: () => {},
      surface: () => registry.surface(caller),
      jobs: async () => service,
      skills,
      ...extra,
    }) as unknown as ToolContext;
  const call = (ctx: ToolContext, name: string, args: Record<string, unknown> = {}) =>
    registry.dispatch({ type: "tool_call", id: `c_${name}`, name, arguments: args }, ctx);
  const owner = context(OPERATOR, OWNER_CHAT);
  const payload = (content: string) => JSON.parse(content.slice(content.indexOf("{")));
  const schedule = async (args: Record<string, unknown> = {}, ctx = owner) => {
    const r = await call(ctx, "schedule_job", {
      name: "Check the build",
      schedule: "every 15 minutes",
      task: "Check the build and say if it is red.",
      ...args,
    });
    return { ...r, job: r.isError ? undefined : payload(r.content) };
  };
  return { db, clock, service, turns, context, call, owner, payload, schedule };
}

describe("schedule_job", () => {
  test("creates a job with the owner's defaults and answers with a sentence and the job", async () => {
    const s = setup();
    const r = await s.schedule();
    expect(r.isError).toBeUndefined();
    const id = r.job.id as string;
    expect(id).toStartWith("check_the_build_");
    expect(r.content.split("\n")[0]).toBe(
      `Scheduled "Check the build" (id ${id}): every 15 minutes; next run 2026-12-01T12:15:00Z (Europe/Berlin).`,
    );
    expect(r.job).toMatchObject({
      name: "Check the build",
      state: "scheduled",
      schedule_kind: "interval",
      timezone: "Europe/Berlin",
      next_run_at: "2026-12-01T12:15:00.000Z",
      task_prompt: "Check the build and say if it is red.",
      delivery_mode: "none",
      delivery_target: null,
      allowed_tools: [],
      created_by_trust: "operator",
    });
    expect(s.service.store.get(id)).toMatchObject({ createdIn: OWNER_CHAT, createdByTrust: "operator" });
  });

  test("takes every option: cron in a zone, expiry, tools, skill, route pin, timeouts and a channel target", async () => {
    const s = setup();
    const r = await s.schedule({
      schedule: "0 8 * * 1-5",
      timezone: "America/New_York",
      description: "weekday build check",
      expires_at: "2027-01-31T00:00:00+01:00",
      allowed_tools: ["git_read", "memory_recall", "git_read"],
      skill_name: "triage",
      provider: "openai",
      model: "gpt-5.5-mini",
      timeout_seconds: 600,
      inactivity_timeout_seconds: 120,
      delivery_target: { platform: "Telegram", chat_id: -100123, message_thread_id: 7 },
    });
    expect(r.isError).toBeUndefined();
    expect(r.content.split("\n")[0]).toEndWith("; next run 2026-12-01T13:00:00Z (America/New_York).");
    expect(r.job).toMatchObject({
      schedule_kind: "cron",
      schedule_expr: "0 8 * * 1-5",
      timezone: "America/New_York",
      description: "weekday build check",
      expires_at: "2027-01-30T23:00:00.000Z",
      allowed_tools: ["git_read", "memory_recall"],
      skill_name: "triage",
      provider: "openai",
      model: "gpt-5.5-mini",
      timeout_seconds: 600,
      inactivity_timeout_seconds: 120,
      delivery_mode: "channel",
      delivery_target: { platform: "telegram", chat_id: "-100123", thread: "7" },
    });
  });

  test("a missing or unknown parameter is named", async () => {
    const s = setup();
    const missing = await s.call(s.owner, "schedule_job", { name: "x", schedule: "every 1 hour" });
    expect(missing).toMatchObject({ isError: true });
    expect(missing.content).toBe(
      "Invalid arguments for schedule_job; fix them and call it again:\n- task: missing; this parameter is required",
    );
    const unknown = await s.schedule({ every: "day" });
    expect(unknown.content).toContain("- every: not a parameter of schedule_job (it takes name, schedule, task,");
    const badSeconds = await s.schedule({ timeout_seconds: 0 });
    expect(badSeconds.content).toContain("- timeout_seconds: must be at least 1");
    expect(s.service.store.list()).toEqual([]);
  });

  test("free-form English, an unknown zone and a schedule with no future run are refused with the parser's words", async () => {
    const s = setup();
    const english = await s.schedule({ schedule: "daily at 8am" });
    const parsed = parseSchedule("daily at 8am", "Europe/Berlin");
    expect(parsed.ok).toBe(false);
    expect(english).toMatchObject({ isError: true, content: (parsed as { error: string }).error });
    expect(english.content).toStartWith('Invalid schedule "daily at 8am"');

    const zone = await s.schedule({ timezone: "Mars/Olympus_Mons" });
    expect(zone).toMatchObject({
      isError: true,
      content: (parseSchedule("every 15 minutes", "Mars/Olympus_Mons") as { error: string }).error,
    });
    expect(zone.content).toContain("Mars/Olympus_Mons");

    const past = await s.schedule({ schedule: "2026-01-01T08:00:00+01:00" });
    expect(past).toMatchObject({ isError: true });
    expect(past.content).toBe(
      'the schedule "2026-01-01T08:00:00+01:00" has no future run (now is 2026-12-01T12:00:00Z); give one that runs again',
    );
    expect(s.service.store.list()).toEqual([]);
  });

  test("expires_at must carry an offset and lie in the future, after the first run", async () => {
    const s = setup();
    expect((await s.schedule({ expires_at: "2026-06-01T00:00:00Z" })).content).toBe(
      "expires_at 2026-06-01T00:00:00Z is in the past; give a future instant (now is 2026-12-01T12:00:00Z)",
    );
    expect((await s.schedule({ expires_at: "2027-01-01T00:00:00" })).content).toBe(
      'expires_at "2027-01-01T00:00:00" is not an ISO 8601 instant with a UTC offset; write it like "2026-12-31T23:00:00+01:00"',
    );
    expect((await s.schedule({ expires_at: "2026-12-01T12:10:00Z" })).content).toBe(
      "expires_at 2026-12-01T12:10:00Z comes before the job's first run (2026-12-01T12:15:00Z); it would never run",
    );
  });

  test("allowed_tools may only name the caller's visible tools; an unknown skill is named", async () => {
    const s = setup();
    expect(await s.schedule({ allowed_tools: ["file_read", "teleport", "summon"] })).toMatchObject({
      isError: true,
      content: "tools not available to the caller: teleport, summon",
    });
    expect(await s.schedule({ skill_name: "nope" })).toMatchObject({
      isError: true,
      content: 'unknown skill "nope"; skill_list shows the skills there are',
    });
    expect(s.service.store.list()).toEqual([]);
  });

  test("a route pin is provider and model together, the provider known and configured", async () => {
    const s = setup();
    expect((await s.schedule({ provider: "openai" })).content).toBe(
      "a route pin needs both provider and model, but only provider was given; set both, or neither to use the default route",
    );
    expect((await s.schedule({ model: "gpt-5.5" })).content).toBe(
      "a route pin needs both provider and model, but only model was given; set both, or neither to use the default route",
    );
    expect((await s.schedule({ provider: "acme", model: "m1" })).content).toBe(
      'unknown provider "acme"; known providers: openai_codex, openai, anthropic, xai, openrouter, mistral, ollama',
    );
    const unconfigured = await s.schedule({ provider: "anthropic", model: "claude-sonnet-4-6" });
    expect(unconfigured.isError).toBe(true);
    expect(unconfigured.content).toStartWith('provider "anthropic" cannot be pinned: Anthropic is not configured');
    expect(s.service.store.list()).toEqual([]);
  });

  test("delivery: channel needs a target, origin needs a conversation, targets normalise", async () => {
    const s = setup();
    expect((await s.schedule({ delivery_mode: "channel" })).content).toBe(
      'delivery_mode "channel" requires delivery_target with "platform" and one of: chat_id, channel_id, recipient, target, reply_target',
    );
    const nowhere = s.context(OPERATOR, undefined);
    expect((await s.schedule({ delivery_mode: "origin" }, nowhere)).content).toBe(
      'delivery_mode "origin" requires a conversation context — schedule from a channel or pass an explicit delivery_target',
    );
    expect((await s.schedule({ delivery_target: { platform: "irc", chat_id: "#x" } })).content).toStartWith(
      'delivery_target platform "irc" is not a chat platform; use one of telegram, slack, discord, whatsapp, signal',
    );
    expect((await s.schedule({ delivery_target: { chat_id: "1" } })).content).toBe(
      'delivery_target is missing "platform"',
    );
    expect((await s.schedule({ delivery_target: "telegram" })).content).toStartWith(
      'delivery_target "telegram" is not "<platform>:<chat_id>[:<thread>]"',
    );

    const shorthand = await s.schedule({ delivery_target: "telegram:-100123:42" });
    expect(shorthand.job).toMatchObject({
      delivery_mode: "channel",
      delivery_target: { platform: "telegram", chat_id: "-100123", thread: "42" },
    });
    const slack = await s.schedule({ delivery_target: { channel: "slack", channel_id: "C01", thread_ts: "1700.5" } });
    expect(slack.job.delivery_target).toEqual({ platform: "slack", chat_id: "C01", thread: "1700.5" });
    const origin = await s.schedule({ delivery_mode: "origin" });
    expect(origin.job).toMatchObject({
      delivery_mode: "origin",
      delivery_target: { platform: "cli", chat_id: "ses_1" },
    });
    const local = await s.schedule({ delivery_mode: "local", delivery_target: "telegram:1" });
    expect(local.job).toMatchObject({ delivery_mode: "local", delivery_target: null });
  });

  test("a context without trust, and a scheduled run, cannot create jobs", async () => {
    const s = setup();
    const trustless = s.context({ local: true, attended: true } as Caller, OWNER_CHAT);
    expect(await s.schedule({}, trustless)).toMatchObject({
      isError: true,
      content: "schedule_job requires a source_trust in context; this context cannot create scheduled jobs.",
    });
    const run = s.context({ ...OPERATOR, attended: false, jobId: "nightly_1" }, { channel: "cron", chat: "x" });
    const refused = await s.schedule({}, run);
    expect(refused.isError).toBe(true);
    expect(refused.content).toStartWith("a scheduled run cannot create jobs (this run belongs to job nightly_1)");
    expect(s.service.store.list()).toEqual([]);
  });

  test("without jobs wired, every job tool says so", async () => {
    const s = setup();
    const bare = s.context(OPERATOR, OWNER_CHAT, { jobs: undefined });
    const args: Record<string, Record<string, unknown>> = {
      schedule_job: { name: "n", schedule: "every 1 hour", task: "t" },
      update_job: { job_id: "j", task: "t" },
      list_jobs: {},
      get_job_run: { run_id: "r" },
    };
    for (const tool of JOB_TOOLS) {
      const r = await s.call(bare, tool.name, args[tool.name] ?? { job_id: "j" });
      expect(r).toMatchObject({ isError: true, content: "scheduled jobs are not available here" });
    }
  });

  test("schedule_job and list_jobs are direct, the other seven on request; all one-line and render for providers", () => {
    expect(JOB_TOOLS.map((t) => [t.name, t.policy])).toEqual([
      ["schedule_job", "job_write"],
      ["update_job", "job_write"],
      ["list_jobs", "job_read"],
      ["pause_job", "job_write"],
      ["resume_job", "job_write"],
      ["remove_job", "job_write"],
      ["run_job_now", "job_write"],
      ["list_job_runs", "job_read"],
      ["get_job_run", "job_read"],
    ]);
    for (const tool of JOB_TOOLS) {
      expect(tool.deferrable).toBe(tool.name === "schedule_job" || tool.name === "list_jobs" ? undefined : true);
      expect(tool.description).not.toContain("\n");
      expect(registry.spec(tool).parameters).toMatchObject({ type: "object" });
    }
  });
});

describe("update_job", () => {
  test("refuses an empty update, the creation-only timeouts and clear_route_pin with a pin", async () => {
    const s = setup();
    const { job } = await s.schedule();
    expect(await s.call(s.owner, "update_job", { job_id: job.id })).toMatchObject({
      isError: true,
      content:
        "Provide at least one of task, schedule, description, skill_name, provider/model, max_usd, or delivery to update.",
    });
    const timeout = await s.call(s.owner, "update_job", { job_id: job.id, timeout_seconds: 60 });
    expect(timeout.isError).toBe(true);
    expect(timeout.content).toContain(
      "- timeout_seconds: set at creation only; update_job cannot change it (remove the job and schedule it again with the new value)",
    );
    const inactivity = await s.call(s.owner, "update_job", { job_id: job.id, inactivity_timeout_seconds: 60 });
    expect(inactivity.content).toContain("- inactivity_timeout_seconds: set at creation only");
    const both = await s.call(s.owner, "update_job", {
      job_id: job.id,
      clear_route_pin: true,
      provider: "openai",
      model: "gpt-5.5",
    });
    expect(both).toMatchObject({ isError: true });
    expect(both.content).toStartWith("clear_route_pin cannot be combined with provider/model");
    expect(await s.call(s.owner, "update_job", { job_id: "nope_1", task: "t" })).toMatchObject({
      isError: true,
      content: 'Not found: there is no job "nope_1"; list_jobs shows the jobs',
    });
  });

  test("edits in place: a new schedule recomputes the next run; omitted delivery is never retargeted", async () => {
    const s = setup();
    const { job } = await s.schedule({ delivery_target: "discord:999", provider: "openai", model: "gpt-5.5" });
    s.clock.now = T0 + 60_000;
    const r = await s.call(s.owner, "update_job", {
      job_id: job.id,
      schedule: "30 9 * * *",
      task: "Check the build twice.",
      allowed_tools: ["git_read"],
    });
    expect(r.isError).toBeUndefined();
    expect(r.content.split("\n")[0]).toBe(
      `Updated "Check the build" (id ${job.id}): task, schedule, allowed_tools. Next run 2026-12-02T08:30:00Z (Europe/Berlin).`,
    );
    expect(s.payload(r.content)).toMatchObject({
      schedule_kind: "cron",
      schedule_expr: "30 9 * * *",
      next_run_at: "2026-12-02T08:30:00.000Z",
      task_prompt: "Check the build twice.",
      allowed_tools: ["git_read"],
      delivery_mode: "channel",
      delivery_target: { platform: "discord", chat_id: "999" },
      provider: "openai",
      model: "gpt-5.5",
    });

    const unpinned = await s.call(s.owner, "update_job", { job_id: job.id, clear_route_pin: true });
    expect(s.payload(unpinned.content)).toMatchObject({ provider: null, model: null });
    const quiet = await s.call(s.owner, "update_job", { job_id: job.id, delivery_mode: "none" });
    expect(s.payload(quiet.content)).toMatchObject({ delivery_mode: "none", delivery_target: null });
    const retarget = await s.call(s.owner, "update_job", {
      job_id: job.id,
      delivery_target: { platform: "signal", recipient: "+4915100" },
    });
    expect(s.payload(retarget.content)).toMatchObject({
      delivery_mode: "channel",
      delivery_target: { platform: "signal", chat_id: "+4915100" },
    });
    const origin = await s.call(s.owner, "update_job", { job_id: job.id, delivery_mode: "origin" });
    expect(s.payload(origin.content).delivery_target).toEqual({ platform: "cli", chat_id: "ses_1" });
    const unknownSkill = await s.call(s.owner, "update_job", { job_id: job.id, skill_name: "nope" });
    expect(unknownSkill).toMatchObject({
      isError: true,
      content: 'unknown skill "nope"; skill_list shows the skills there are',
    });
    const badPin = await s.call(s.owner, "update_job", { job_id: job.id, provider: "xai" });
    expect(badPin.content).toStartWith("a route pin needs both provider and model");
  });

  test("a disabled job gets a schedule that parses: its error clears, it stays disabled until resumed", async () => {
    const s = setup();
    const { job } = await s.schedule();
    s.service.store.update(job.id, { state: "disabled", lastError: 'Invalid schedule "every fortnight"' });
    const r = await s.call(s.owner, "update_job", { job_id: job.id, schedule: "every 2 hours" });
    expect(r.content.split("\n")[0]).toBe(
      `Updated "Check the build" (id ${job.id}): schedule. Next run 2026-12-01T14:00:00Z (Europe/Berlin). The job is disabled; resume_job puts it back on its schedule.`,
    );
    expect(s.payload(r.content)).toMatchObject({ state: "disabled", last_error: null });
    const bad = await s.call(s.owner, "update_job", { job_id: job.id, timezone: "Nowhere/Land" });
    expect(bad).toMatchObject({ isError: true });
    expect(bad.content).toContain("Nowhere/Land");
    const resumed = await s.call(s.owner, "resume_job", { job_id: job.id });
    expect(resumed.content.split("\n")[0]).toBe(
      `Resumed "Check the build" (id ${job.id}); next run 2026-12-01T14:00:00Z (Europe/Berlin).`,
    );
  });
});

describe("listing, pausing, removing and running jobs", () => {
  test("list_jobs returns {jobs}, filtered by state; pause and resume move a job", async () => {
    const s = setup();
    const a = (await s.schedule({ name: "A" })).job;
    const b = (await s.schedule({ name: "B" })).job;
    const paused = await s.call(s.owner, "pause_job", { job_id: a.id });
    expect(paused.content.split("\n")[0]).toBe(`Paused "A" (id ${a.id}); resume_job puts it back on its schedule.`);
    const all = JSON.parse((await s.call(s.owner, "list_jobs")).content);
    expect(all.jobs.map((j: { id: string }) => j.id).sort()).toEqual([a.id, b.id].sort());
    const onlyPaused = JSON.parse((await s.call(s.owner, "list_jobs", { state: "paused" })).content);
    expect(onlyPaused.jobs.map((j: { id: string; state: string }) => [j.id, j.state])).toEqual([[a.id, "paused"]]);
    expect((await s.call(s.owner, "list_jobs", { state: "sleeping" })).isError).toBe(true);
    expect((await s.call(s.owner, "resume_job", { job_id: a.id })).isError).toBeUndefined();
    expect(s.service.store.get(a.id)!.state).toBe("scheduled");
  });

  test("run_job_now in a one-shot runs the job through the turn and returns the manual run", async () => {
    const s = setup();
    const { job } = await s.schedule();
    const r = await s.call(s.owner, "run_job_now", { job_id: job.id });
    expect(r.isError).toBeUndefined();
    const run = s.payload(r.content);
    expect(r.content.split("\n")[0]).toBe(`Ran "Check the build" (id ${job.id}) now: run ${run.id} ended ok.`);
    expect(run).toMatchObject({ job_id: job.id, trigger: "manual", status: "ok", final_response: "All green." });
    expect(s.turns).toEqual(["Check the build and say if it is red."]);
    // The cadence is untouched.
    expect(s.service.store.get(job.id)).toMatchObject({ state: "scheduled", nextRunAt: T0 + 15 * 60_000 });

    const runs = JSON.parse((await s.call(s.owner, "list_job_runs", { job_id: job.id })).content);
    expect(runs.runs).toMatchObject([{ id: run.id, trigger: "manual", status: "ok" }]);
    expect(runs.runs[0].prompt_snapshot).toBeUndefined();
    const none = JSON.parse((await s.call(s.owner, "list_job_runs", { job_id: job.id, status: "error" })).content);
    expect(none.runs).toEqual([]);
    expect((await s.call(s.owner, "list_job_runs", { job_id: job.id, limit: 101 })).isError).toBe(true);

    const full = JSON.parse((await s.call(s.owner, "get_job_run", { run_id: run.id })).content);
    expect(full).toMatchObject({ id: run.id, final_response: "All green." });
    expect(full.prompt_snapshot).toContain("USER:\nCheck the build and say if it is red.");
    expect(full.config_snapshot).toMatchObject({
      job_id: job.id,
      task_prompt: "Check the build and say if it is red.",
    });
    expect(await s.call(s.owner, "get_job_run", { run_id: "run_nope" })).toMatchObject({
      isError: true,
      content: 'Not found: there is no run "run_nope"; list_job_runs shows a job\'s runs',
    });

    await s.call(s.owner, "pause_job", { job_id: job.id });
    const paused = await s.call(s.owner, "run_job_now", { job_id: job.id });
    expect(paused).toMatchObject({ isError: true, content: `job ${job.id} is paused; resume it first` });
  });

  test("remove_job refuses while a run is active, then removes", async () => {
    const s = setup();
    const { job } = await s.schedule();
    const claim = s.service.store.claim({ jobId: job.id, trigger: "manual", nextRunAt: T0 + 15 * 60_000 });
    expect(claim.ok).toBe(true);
    expect(await s.call(s.owner, "remove_job", { job_id: job.id })).toMatchObject({
      isError: true,
      content: `job ${job.id} has a run in progress; pause it, or wait for the run to finish`,
    });
    if (claim.ok) s.service.store.finish(claim.run.id, { status: "ok", finalResponse: "x", deliveryStatus: "none" });
    const removed = await s.call(s.owner, "remove_job", { job_id: job.id });
    expect(JSON.parse(removed.content)).toEqual({ removed: true, job_id: job.id });
    expect(s.service.store.get(job.id)).toBeUndefined();
  });
});

describe("job tools and a guest", () => {
  test("a guest's surface has the job writes but none of the job reads", () => {
    const names = registry.surface(GUEST).map((t) => t.name);
    for (const name of ["schedule_job", "update_job", "pause_job", "resume_job", "remove_job", "run_job_now"]) {
      expect(names).toContain(name);
    }
    for (const name of ["list_jobs", "list_job_runs", "get_job_run"]) expect(names).not.toContain(name);
  });

  test("a guest schedules with its own tools only, and sees only its own jobs", async () => {
    const s = setup();
    const guest = s.context(GUEST, GUEST_CHAT);
    const mine = await s.schedule({ allowed_tools: ["memory_recall"], delivery_mode: "origin" }, guest);
    expect(mine.isError).toBeUndefined();
    expect(mine.job).toMatchObject({
      created_by_trust: "guest",
      allowed_tools: ["memory_recall"],
      delivery_target: { platform: "telegram", chat_id: "42" },
    });
    for (const tool of ["shell", "file_read", "subagents"]) {
      expect(await s.schedule({ allowed_tools: ["memory_recall", tool] }, guest)).toMatchObject({
        isError: true,
        content: `tools not available to the caller: ${tool}`,
      });
    }

    const owners = (await s.schedule()).job;
    for (const [name, args] of [
      ["update_job", { job_id: owners.id, task: "leak" }],
      ["pause_job", { job_id: owners.id }],
      ["remove_job", { job_id: owners.id }],
      ["run_job_now", { job_id: owners.id }],
    ] as const) {
      expect(await s.call(guest, name, args)).toMatchObject({
        isError: true,
        content: `Not found: there is no job "${owners.id}"`,
      });
    }
    // Another guest chat's job is as invisible as the owner's.
    const elsewhere = s.context(GUEST, { channel: "telegram", chat: "77" });
    expect((await s.call(elsewhere, "pause_job", { job_id: mine.job.id })).isError).toBe(true);

    const edited = await s.call(guest, "update_job", { job_id: mine.job.id, task: "Remind me to water the plants." });
    expect(s.payload(edited.content).task_prompt).toBe("Remind me to water the plants.");
    expect(await s.call(guest, "list_jobs")).toMatchObject({
      isError: true,
      content: 'There is no tool named "list_jobs" available here.',
    });
    expect(s.service.store.get(owners.id)!.taskPrompt).toBe("Check the build and say if it is red.");
  });
});
