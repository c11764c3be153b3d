import { describe, expect, test } from "bun:test";
import { startFakeOpenAIResponses } from "../fake/llm.ts";
import type { RecordedRequest } from "../fake/types.ts";
import { cleanupAfterEach } from "../fixture/cleanup.ts";
import { runFermix, startFermixDaemon } from "../fixture/cli.ts";
import { tempHome } from "../fixture/home.ts";
import { toolOutputs } from "../fixture/tool-outputs.ts";

/*
 * Jobs end to end on the compiled binary: created by the model through schedule_job in a real turn, fired by the
 * daemon's clock, listed by `fermix jobs runs` and list_job_runs; run_job_now; a SIGKILL in the middle of a run.
 */

const KEY = "sk-test-jobs-0123456789abcdef";
const defer = cleanupAfterEach();
const isJobRun = (req: RecordedRequest) => JSON.stringify(req.body).includes("This is a scheduled run");

async function setup() {
  const h = tempHome();
  const fake = await startFakeOpenAIResponses({ apiKey: KEY });
  defer(() => h[Symbol.asyncDispose]());
  defer(() => fake.close());
  h.writeConfig('[fermix_core.personalization]\ntimezone = "Europe/Berlin"\n');
  const env = { FERMIX_HOME: h.home, HOME: h.userHome, OPENAI_API_KEY: KEY, OPENAI_BASE_URL: fake.baseUrl };
  const cli = { FERMIX_HOME: h.home, HOME: h.userHome };
  return { h, fake, env, cli };
}

type RunRow = {
  id: string;
  trigger: string;
  status: string;
  claimed_at: string;
  final_response: string | null;
  error: string | null;
};

async function runsOf(jobId: string, env: Record<string, string>): Promise<RunRow[]> {
  const r = await runFermix(["jobs", "runs", jobId, "--json"], { env });
  expect(r.code).toBe(0);
  return JSON.parse(r.stdout).result.runs;
}

/** Polls `fermix jobs runs` (what an owner would look at) until `done` holds; the deadline is a safety net. */
async function runsUntil(
  jobId: string,
  env: Record<string, string>,
  done: (runs: RunRow[]) => boolean,
  deadlineMs: number,
): Promise<RunRow[]> {
  const end = Date.now() + deadlineMs;
  for (;;) {
    const runs = await runsOf(jobId, env);
    if (done(runs)) return runs;
    if (Date.now() > end) throw new Error(`not reached within ${deadlineMs} ms: ${JSON.stringify(runs)}`);
    await new Promise((resolve) => setTimeout(resolve, 500));
  }
}

async function jobIds(env: Record<string, string>): Promise<string[]> {
  const listed = await runFermix(["jobs", "list", "--json"], { env });
  expect(listed.code).toBe(0);
  return JSON.parse(listed.stdout).result.jobs.map((j: { id: string }) => j.id);
}

describe("scheduled jobs under the daemon (compiled binary, fake provider)", () => {
  test("a job the model schedules every minute fires within 70 s; its run shows in `fermix jobs runs` and list_job_runs", async () => {
    const { fake, env, cli } = await setup();
    const daemon = await startFermixDaemon(env);
    defer(() => daemon.stop());
    fake.setDefault((req) =>
      isJobRun(req) ? { kind: "text", text: "The build is green." } : { kind: "text", text: "Done." },
    );
    fake.enqueue({
      kind: "tool_calls",
      calls: [
        {
          name: "schedule_job",
          arguments: {
            name: "build watch",
            schedule: "every 1 minutes",
            task: "Check the build and report its state.",
          },
        },
      ],
    });
    const asked = Date.now();
    const created = await runFermix(["ask", "-s", "ops", "check the build every minute"], { env: cli });
    expect(created).toMatchObject({ code: 0, stdout: "Done.\n" });
    const scheduled = toolOutputs(fake.requests[1]!)[0]!;
    expect(scheduled).toContain("every 1 minutes");
    const [jobId] = await jobIds(cli);
    expect(jobId).toStartWith("build_watch_");

    const runs = await runsUntil(jobId!, cli, (r) => r.some((run) => run.status === "ok"), 90_000);
    const first = runs.find((run) => run.status === "ok")!;
    expect(first).toMatchObject({ trigger: "schedule", final_response: "The build is green.", error: null });
    expect(Date.parse(first.claimed_at) - asked).toBeLessThanOrEqual(70_000);
    const jobRequest = fake.requests.find(isJobRun)!;
    // The run is isolated: its own session (the creating chat is not in its input), the job's framing and date.
    expect(JSON.stringify(jobRequest.body)).not.toContain("check the build every minute");
    expect(JSON.stringify(jobRequest.body)).toContain("Check the build and report its state.");
    expect(JSON.stringify(jobRequest.body)).toContain("(Europe/Berlin)");

    fake.enqueue({ kind: "tool_calls", calls: [{ name: "list_job_runs", arguments: { job_id: jobId } }] });
    fake.enqueue({ kind: "text", text: "listed" });
    const listed = await runFermix(["ask", "-s", "ops", "how did the build watch do?"], { env: cli });
    expect(listed.code).toBe(0);
    // The session's history holds the earlier schedule_job output too; the newest output is list_job_runs'.
    const answered = fake.requests.filter((req) => !isJobRun(req)).at(-1)!;
    const listedRuns = JSON.parse(toolOutputs(answered).at(-1)!).runs as RunRow[];
    expect(listedRuns.find((run) => run.id === first.id)).toMatchObject({
      status: "ok",
      final_response: "The build is green.",
    });
  }, 120_000);

  test("run_job_now runs at once with trigger manual; an origin job's answer is shown before the session's next ask", async () => {
    const { fake, env, cli } = await setup();
    const daemon = await startFermixDaemon(env);
    defer(() => daemon.stop());
    fake.setDefault((req) => (isJobRun(req) ? { kind: "text", text: "Inbox: 3 new." } : { kind: "text", text: "ok" }));
    fake.enqueue({
      kind: "tool_calls",
      calls: [
        {
          name: "schedule_job",
          arguments: { name: "inbox", schedule: "0 8 * * *", task: "Summarise my inbox.", delivery_mode: "origin" },
        },
      ],
    });
    expect((await runFermix(["ask", "-s", "mail", "schedule my inbox summary"], { env: cli })).code).toBe(0);
    const [jobId] = await jobIds(cli);
    fake.enqueue({ kind: "tool_calls", calls: [{ name: "run_job_now", arguments: { job_id: jobId } }] });
    expect((await runFermix(["ask", "run it now"], { env: cli })).code).toBe(0);
    const runs = await runsUntil(jobId!, cli, (r) => r.some((run) => run.status === "ok"), 30_000);
    expect(runs).toHaveLength(1);
    expect(runs[0]).toMatchObject({ trigger: "manual", status: "ok", final_response: "Inbox: 3 new." });
    // The cron cadence is untouched: the job is scheduled for its next 08:00 in Berlin.
    const shown = JSON.parse((await runFermix(["jobs", "show", jobId!, "--json"], { env: cli })).stdout).result.job;
    expect(shown).toMatchObject({ state: "scheduled", last_status: "ok" });
    expect(new Date(shown.next_run_at).getTime()).toBeGreaterThan(Date.now());

    // origin: the answer waits for the session that created the job, once.
    const other = await runFermix(["ask", "-s", "elsewhere", "hello"], { env: cli });
    expect(other.stderr).not.toContain("Inbox: 3 new.");
    const back = await runFermix(["ask", "-s", "mail", "anything new?"], { env: cli });
    expect(back.stderr).toContain(`fermix: job "inbox" (${runs[0]!.id}, ok):\nInbox: 3 new.`);
    const again = await runFermix(["ask", "-s", "mail", "and now?"], { env: cli });
    expect(again.stderr).not.toContain("Inbox: 3 new.");
  }, 60_000);

  test("SIGKILL during a run: after the restart the run is marked interrupted and is not replayed", async () => {
    const { fake, env, cli } = await setup();
    const daemon = await startFermixDaemon(env);
    defer(() => daemon.stop());
    fake.enqueue({
      kind: "tool_calls",
      calls: [
        { name: "schedule_job", arguments: { name: "slow", schedule: "every 1 days", task: "Do the long thing." } },
      ],
    });
    expect((await runFermix(["ask", "schedule the long thing daily"], { env: cli })).code).toBe(0);
    const [jobId] = await jobIds(cli);
    const before = fake.requests.length;
    fake.setDefault({ kind: "hang" });
    const started = await runFermix(["jobs", "run", jobId!], { env: cli });
    expect(started.code).toBe(0);
    await fake.waitForRequests(before + 1);
    expect(isJobRun(fake.requests.at(-1)!)).toBe(true);
    process.kill(daemon.pid, "SIGKILL");
    await daemon.stop();

    fake.setDefault({ kind: "text", text: "should never be asked" });
    const next = await startFermixDaemon(env);
    defer(() => next.stop());
    const runs = await runsOf(jobId!, cli);
    expect(runs).toHaveLength(1);
    expect(runs[0]!.status).toBe("error");
    expect(runs[0]!.error).toStartWith("interrupted:");
    const requestsAfter = fake.requests.length;
    // Nothing is replayed: the job waits for its next day, and the fake hears nothing more.
    const shown = JSON.parse((await runFermix(["jobs", "show", jobId!, "--json"], { env: cli })).stdout).result.job;
    expect(shown).toMatchObject({ state: "scheduled", last_status: "error" });
    expect(fake.requests.length).toBe(requestsAfter);
    expect(await next.stop()).toBe(0);
  }, 60_000);
});
