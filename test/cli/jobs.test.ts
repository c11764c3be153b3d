import { describe, expect, test } from "bun:test";
import { existsSync, mkdirSync } from "node:fs";
import { join } from "node:path";
import { createJobStore } from "../../src/jobs/job-store.ts";
import type { JobDraft } from "../../src/jobs/job-types.ts";
import { openDatabase } from "../../src/memory/db.ts";
import { startFakeOpenAIResponses } from "../fake/llm.ts";
import { cleanupAfterEach } from "../fixture/cleanup.ts";
import { runFermix, startFermixDaemon } from "../fixture/cli.ts";
import { type TempHome, tempHome } from "../fixture/home.ts";
import { draft } from "../jobs/_fixture.ts";

const KEY = "sk-test-openai-0123456789abcdef";
const defer = cleanupAfterEach();

const DRAFT: JobDraft = draft({
  name: "morning digest",
  scheduleKind: "cron",
  scheduleExpr: "0 8 * * *",
  taskPrompt: "Summarise the news.\nKeep it short.",
  deliveryMode: "none",
});
/** Far enough that a daemon's clock never fires a seeded job during a test. */
const FAR = Date.parse("2099-01-01T08:00:00Z");
const T0 = Date.parse("2026-03-01T07:00:00Z");

/**
 * Two jobs written into the home's memory.db the way the job tools write them, on a clock the test holds:
 * a cron digest with one finished run, and an interval job that never ran (created a second later).
 */
function seed(h: TempHome) {
  mkdirSync(h.home, { recursive: true, mode: 0o700 });
  const db = openDatabase(join(h.home, "memory.db"));
  let t = T0;
  const store = createJobStore(db, () => t);
  const createdIn = { channel: "cli", chat: "default" };
  const digest = store.create(DRAFT, { nextRunAt: FAR, trust: "operator", createdIn });
  t += 1000;
  const plants = store.create(
    { ...DRAFT, name: "water plants", scheduleKind: "interval", scheduleExpr: "every 15 minutes", taskPrompt: "Ask." },
    { nextRunAt: FAR, trust: "operator", createdIn },
  );
  t += 1000;
  const claim = store.claim({ jobId: digest.id, trigger: "schedule", nextRunAt: FAR });
  if (!claim.ok) throw new Error("the seeded job could not be claimed");
  store.started(claim.run.id, { prompt: "SYSTEM:\n…", config: {} });
  t += 4200;
  store.finish(claim.run.id, {
    status: "ok",
    finalResponse: "Three stories today:\n1. Rain in Berlin.",
    deliveryStatus: "none",
  });
  db.close();
  return { digest: digest.id, plants: plants.id, run: claim.run.id };
}

function home() {
  const h = tempHome();
  defer(() => h[Symbol.asyncDispose]());
  return { h, env: { FERMIX_HOME: h.home, HOME: h.userHome } };
}

async function withDaemon() {
  const { h, env } = home();
  const ids = seed(h);
  const fake = await startFakeOpenAIResponses({ apiKey: KEY });
  defer(() => fake.close());
  const daemon = await startFermixDaemon({ ...env, OPENAI_API_KEY: KEY, OPENAI_BASE_URL: fake.baseUrl });
  defer(() => daemon.stop());
  return { h, env, fake, ids };
}

const fermix = (args: string[], env: Record<string, string>) => runFermix(["jobs", ...args], { env });
const json = async (args: string[], env: Record<string, string>) => {
  const r = await fermix([...args, "--json"], env);
  return { code: r.code, stderr: r.stderr, body: JSON.parse(r.stdout) };
};

describe("fermix jobs without a daemon (memory.db read directly)", () => {
  test("list, show and runs as text", async () => {
    const { h, env } = home();
    const { digest, plants, run } = seed(h);
    expect(await fermix(["list"], env)).toEqual({
      code: 0,
      stdout:
        `${plants}\twater plants\tscheduled\tevery 15 minutes\t2099-01-01T08:00:00Z\t-\n` +
        `${digest}\tmorning digest\tscheduled\tcron 0 8 * * * (Europe/Berlin)\t2099-01-01T08:00:00Z\tok\n`,
      stderr: "",
    });
    // The group's default subcommand is list.
    expect((await runFermix(["jobs"], { env })).stdout).toBe((await fermix(["list"], env)).stdout);
    expect((await fermix(["list", "--state", "paused"], env)).stdout).toBe("no scheduled jobs\n");

    expect(await fermix(["show", digest], env)).toEqual({
      code: 0,
      stdout: [
        `id: ${digest}`,
        "name: morning digest",
        "state: scheduled",
        "schedule: cron 0 8 * * * (Europe/Berlin)",
        "next run: 2099-01-01T08:00:00Z",
        "expires: -",
        "task: Summarise the news.",
        "  Keep it short.",
        "skill: -",
        "model: -",
        "tools: not narrowed",
        "delivery: none",
        "last run: 2026-03-01T07:00:06.200Z",
        "last status: ok",
        "last error: -",
        "created: 2026-03-01T07:00:00Z (by operator)",
        "",
      ].join("\n"),
      stderr: "",
    });

    expect(await fermix(["runs", digest], env)).toEqual({
      code: 0,
      stdout: `${run}\tschedule\tok\t2026-03-01T07:00:02Z\t4.2s\tThree stories today: 1. Rain in Berlin.\n`,
      stderr: "",
    });
    expect((await fermix(["runs", plants], env)).stdout).toBe("no runs\n");
  });

  test("--json gives the house envelope: {jobs}, {job}, {runs}", async () => {
    const { h, env } = home();
    const { digest, plants, run } = seed(h);
    const list = await json(["list"], env);
    expect(list.code).toBe(0);
    expect(Object.keys(list.body)).toEqual(["schema_version", "ok", "result"]);
    expect(list.body).toMatchObject({ schema_version: 1, ok: true });
    expect(Object.keys(list.body.result)).toEqual(["jobs"]);
    expect(list.body.result.jobs).toHaveLength(2);
    expect(list.body.result.jobs[1]).toEqual({
      id: digest,
      name: "morning digest",
      description: "",
      state: "scheduled",
      enabled: true,
      schedule_kind: "cron",
      schedule_expr: "0 8 * * *",
      timezone: "Europe/Berlin",
      next_run_at: "2099-01-01T08:00:00.000Z",
      expires_at: null,
      task_prompt: "Summarise the news.\nKeep it short.",
      skill_name: null,
      provider: null,
      model: null,
      allowed_tools: [],
      timeout_seconds: null,
      inactivity_timeout_seconds: null,
      max_usd: null,
      delivery_mode: "none",
      delivery_target: null,
      memory_source_id: `job:${digest}`,
      created_by_trust: "operator",
      last_run_at: "2026-03-01T07:00:06.200Z",
      last_status: "ok",
      last_error: null,
      created_at: "2026-03-01T07:00:00.000Z",
      updated_at: "2026-03-01T07:00:06.200Z",
    });
    expect(list.body.result.jobs[0]).toMatchObject({ id: plants, schedule_kind: "interval", last_status: null });

    const show = await json(["show", plants], env);
    expect(show).toMatchObject({ code: 0, body: { schema_version: 1, ok: true, result: { job: { id: plants } } } });
    expect(Object.keys(show.body.result)).toEqual(["job"]);

    const runs = await json(["runs", digest], env);
    expect(runs.code).toBe(0);
    expect(Object.keys(runs.body.result)).toEqual(["runs"]);
    expect(runs.body.result.runs).toEqual([
      {
        id: run,
        job_id: digest,
        session_id: `cron_${digest}_${T0 + 2000}`,
        trigger: "schedule",
        status: "ok",
        claimed_at: "2026-03-01T07:00:02.000Z",
        started_at: "2026-03-01T07:00:02.000Z",
        completed_at: "2026-03-01T07:00:06.200Z",
        final_response: "Three stories today:\n1. Rain in Berlin.",
        error: null,
        delivery_status: "none",
        delivery_error: null,
        token_usage: null,
        tool_failures: null,
      },
    ]);
    expect((await json(["runs", digest, "--limit", "1", "--status", "error"], env)).body.result).toEqual({ runs: [] });
  });

  test("an unknown job exits 1 with a sentence, or the error envelope with --json", async () => {
    const { h, env } = home();
    seed(h);
    for (const sub of ["show", "runs"]) {
      expect(await fermix([sub, "nope_123"], env)).toEqual({
        code: 1,
        stdout: "",
        stderr: 'fermix: no job "nope_123"; fermix jobs list shows the jobs\n',
      });
    }
    expect(await json(["show", "nope_123"], env)).toEqual({
      code: 1,
      stderr: "",
      body: {
        schema_version: 1,
        ok: false,
        error: { code: "job_not_found", sentence: 'no job "nope_123"; fermix jobs list shows the jobs' },
      },
    });
    const bad = await fermix(["runs", "x", "--limit", "0"], env);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toStartWith("fermix: jobs runs: --limit takes a whole number from 1 to 500\n");
  });

  test("a home without memory.db has no jobs, and nothing is created", async () => {
    const { h, env } = home();
    expect(await fermix(["list"], env)).toEqual({ code: 0, stdout: "no scheduled jobs\n", stderr: "" });
    expect(await fermix(["list", "--json"], env)).toEqual({
      code: 0,
      stdout: '{"schema_version":1,"ok":true,"result":{"jobs":[]}}\n',
      stderr: "",
    });
    expect((await fermix(["show", "x"], env)).code).toBe(1);
    expect(existsSync(h.home)).toBe(false);
  });

  test("run, pause, resume and remove need the daemon: exit 3", async () => {
    const { h, env } = home();
    const { digest } = seed(h);
    for (const sub of ["run", "pause", "resume", "remove"]) {
      expect({ sub, ...(await fermix([sub, digest], env)) }).toEqual({
        sub,
        code: 3,
        stdout: "",
        stderr: "fermix: not running\n",
      });
    }
    expect(await json(["pause", digest], env)).toEqual({
      code: 3,
      stderr: "",
      body: { schema_version: 1, ok: false, error: { code: "not_running", sentence: "not running" } },
    });
    // Nothing changed behind the daemon's back.
    expect((await json(["show", digest], env)).body.result.job.state).toBe("scheduled");
  });
});

describe("fermix jobs with a daemon", () => {
  test("pause, resume and remove; list shows the daemon's states", async () => {
    const { env, ids } = await withDaemon();
    expect(await fermix(["pause", ids.digest], env)).toEqual({
      code: 0,
      stdout: `paused ${ids.digest}\n`,
      stderr: "",
    });
    expect((await fermix(["list"], env)).stdout).toContain(`${ids.digest}\tmorning digest\tpaused\t`);
    expect((await json(["list", "--state", "paused"], env)).body.result.jobs.map((j: any) => j.id)).toEqual([
      ids.digest,
    ]);
    // A paused job is not run on request.
    expect(await fermix(["run", ids.digest], env)).toEqual({
      code: 1,
      stdout: "",
      stderr: `fermix: job ${ids.digest} is paused; resume it first\n`,
    });

    const resumed = await json(["resume", ids.digest], env);
    expect(resumed).toMatchObject({
      code: 0,
      body: { ok: true, result: { job: { id: ids.digest, state: "scheduled" } } },
    });
    // Back on the clock from now: the next 08:00 in Berlin, no longer the far-off seeded time.
    expect(Date.parse(resumed.body.result.job.next_run_at)).toBeLessThan(Date.now() + 2 * 86_400_000);
    expect((await fermix(["resume", ids.digest], env)).stdout).toMatch(
      new RegExp(`^resumed ${ids.digest} \\(next run \\d{4}-\\d\\d-\\d\\dT\\d\\d:00:00Z\\)\\n$`),
    );

    expect(await json(["remove", ids.plants], env)).toEqual({
      code: 0,
      stderr: "",
      body: { schema_version: 1, ok: true, result: { removed: true, job_id: ids.plants } },
    });
    expect(await fermix(["remove", ids.plants], env)).toEqual({
      code: 1,
      stdout: "",
      stderr: `fermix: no job "${ids.plants}"; fermix jobs list shows the jobs\n`,
    });
    expect((await fermix(["list"], env)).stdout).not.toContain(ids.plants);
    expect(await json(["pause", "nope_1"], env)).toMatchObject({
      code: 1,
      body: { ok: false, error: { code: "job_not_found" } },
    });
  });

  test("run starts it now; runs shows it manual, with the model's answer once it finished", async () => {
    const { env, fake, ids } = await withDaemon();
    fake.setDefault({ kind: "text", text: "Nothing new today." });
    const started = await fermix(["run", ids.plants], env);
    expect(started.code).toBe(0);
    expect(started.stderr).toBe("");
    const runId = /^started (run_[0-9a-f]+) \(job ([\w]+)\)\n$/.exec(started.stdout);
    expect(runId?.[2]).toBe(ids.plants);

    const deadline = Date.now() + 25_000;
    let run: any;
    while (Date.now() < deadline) {
      const r = await json(["runs", ids.plants], env);
      run = r.body.result.runs.find((x: any) => x.id === runId![1]);
      if (run && run.status !== "queued" && run.status !== "running") break;
    }
    expect(run).toMatchObject({
      id: runId![1],
      job_id: ids.plants,
      trigger: "manual",
      status: "ok",
      final_response: "Nothing new today.",
      error: null,
    });
    expect(fake.requests.length).toBeGreaterThanOrEqual(1);
    const text = await fermix(["runs", ids.plants], env);
    expect(text.stdout).toMatch(
      new RegExp(`^${runId![1]}\\tmanual\\tok\\t\\d{4}-[\\d:T.-]+Z\\t[\\d.]+m?s\\tNothing new today\\.\\n$`),
    );
    // Its cadence is untouched: the next run is still the seeded one.
    expect((await json(["show", ids.plants], env)).body.result.job).toMatchObject({
      state: "scheduled",
      next_run_at: "2099-01-01T08:00:00.000Z",
      last_status: "ok",
    });
  });
});
