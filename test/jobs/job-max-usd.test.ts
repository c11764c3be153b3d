import { describe, expect, test } from "bun:test";
import { createApp } from "../../src/app.ts";
import { fermixPaths } from "../../src/config/paths.ts";
import { openSqlite } from "../../src/runtime/sqlite.ts";
import { createUsageLedger } from "../../src/usage/ledger.ts";
import { startFakeOpenAIResponses } from "../fake/llm.ts";
import { cleanupAfterEach } from "../fixture/cleanup.ts";
import { tempHome } from "../fixture/home.ts";
import { toolOutputs } from "../fixture/tool-outputs.ts";

/*
 * A job's own max_usd per run (issue 30): set by schedule_job, shown with the job's other limits, changed by
 * update_job; a run that crosses it stops before its next model call and is recorded with status `budget`.
 */

const defer = cleanupAfterEach();
const KEY = "sk-test-job-max-usd-0123456789";
const owner = { trust: "operator" as const, local: true, attended: true };
const chat = { channel: "cli", chat: "s1" };

async function setup() {
  const h = tempHome();
  defer(() => h[Symbol.asyncDispose]());
  const llm = await startFakeOpenAIResponses({ apiKey: KEY });
  defer(() => llm.close());
  h.writeConfig(
    [
      "[fermix_core.tools.tool_search]",
      "enabled = false",
      '[fermix_core.pricing."openai/gpt-5.5"]',
      "input_per_mtok = 2",
      "output_per_mtok = 10",
      "",
    ].join("\n"),
  );
  const app = await createApp({
    env: { FERMIX_HOME: h.home, HOME: h.userHome, OPENAI_API_KEY: KEY, OPENAI_BASE_URL: llm.baseUrl },
  });
  defer(() => app.close());
  return { app, llm, home: h.home };
}

describe("a job's max_usd per run", () => {
  test("a run that crosses its max_usd stops after its first call, recorded `budget` with a sentence naming max_usd", async () => {
    const { app, llm, home } = await setup();
    llm.enqueue({
      kind: "tool_calls",
      calls: [
        {
          name: "schedule_job",
          arguments: { name: "digest", schedule: "every 1 days", task: "Recall my notes.", max_usd: 0.000001 },
        },
      ],
    });
    llm.enqueue({ kind: "text", text: "Scheduled." });
    await app.ask({ key: chat, caller: owner, text: "a daily digest, at most a millionth of a dollar a run" });
    expect(toolOutputs(llm.requests[1]!)[0]).toContain('"max_usd":0.000001');

    const jobs = await app.jobs();
    const [job] = jobs.store.list();
    expect(job).toMatchObject({ name: "digest", maxUsd: 0.000001 });
    const before = llm.requests.length;
    // The run's first call asks for a tool; the second call would answer, but the first already crossed the limit.
    llm.enqueue({ kind: "tool_calls", calls: [{ name: "memory_recall", arguments: { query: "notes" } }] });
    llm.setDefault({ kind: "text", text: "Your notes." });
    const started = jobs.runNow(job!.id);
    if (!started.ok) throw new Error(started.reason);
    await started.done;

    expect(llm.requests.length - before).toBe(1);
    const [run] = jobs.store.runs(job!.id);
    expect(run).toMatchObject({ status: "budget", finalResponse: null });
    expect(run!.error).toContain('The run of job "digest" reached its own limit');
    expect(run!.error).toContain("max_usd $0.0000010");
    expect(run!.configSnapshot).toMatchObject({ max_usd: 0.000001 });
    expect(jobs.store.get(job!.id)).toMatchObject({ lastStatus: "budget" });
    // The call the run made is in the ledger under the job.
    const db = openSqlite(fermixPaths(home).db);
    defer(() => db.close());
    const ledger = createUsageLedger(db).summarize({ by: "job" });
    expect(ledger.rows.find((r) => r.group === job!.id)).toMatchObject({ calls: 1 });
  });

  test("update_job raises or removes max_usd; a limit of 0 is refused with the field named", async () => {
    const { app, llm } = await setup();
    const jobs = await app.jobs();
    const call = (name: string, args: Record<string, unknown>) => {
      llm.enqueue({ kind: "tool_calls", calls: [{ name, arguments: args }] });
      llm.setDefault((req) => ({ kind: "text", text: toolOutputs(req).join("\n") }));
      return app.ask({ key: chat, caller: owner, text: `${name} please` });
    };
    const refused = await call("schedule_job", { name: "n", schedule: "every 1 days", task: "t", max_usd: 0 });
    expect(refused.response).toContain("max_usd");
    expect(refused.response).toContain("must be more than 0");
    expect(jobs.store.list()).toEqual([]);

    await call("schedule_job", { name: "n", schedule: "every 1 days", task: "t" });
    const id = jobs.store.list()[0]!.id;
    expect(jobs.store.get(id)!.maxUsd).toBeNull();
    const raised = await call("update_job", { job_id: id, max_usd: 0.5 });
    expect(raised.response).toContain(": max_usd.");
    expect(jobs.store.get(id)!.maxUsd).toBe(0.5);
    const listed = await call("list_jobs", {});
    expect(listed.response).toContain('"max_usd":0.5');
    const removed = await call("update_job", { job_id: id, max_usd: null });
    expect(removed.response).toContain("max_usd removed");
    expect(jobs.store.get(id)!.maxUsd).toBeNull();
  });
});
