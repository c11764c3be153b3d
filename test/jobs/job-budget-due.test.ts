import { describe, expect, test } from "bun:test";
import { createApp } from "../../src/app.ts";
import { startFakeOpenAIResponses } from "../fake/llm.ts";
import { cleanupAfterEach } from "../fixture/cleanup.ts";
import { tempHome } from "../fixture/home.ts";

/*
 * Issue 30: a scheduled run that comes due while the owner's budget is spent is recorded with status `budget`
 * instead of running — through the scheduler itself, not a manual run — and the provider hears nothing of it.
 */

const defer = cleanupAfterEach();

/** Polls `done` until it holds; the deadline is a safety net, not what is measured. */
async function until(done: () => boolean, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!done()) {
    if (Date.now() > deadline) throw new Error(`not done within ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}
const KEY = "sk-test-job-budget-due-0123456789";
const owner = { trust: "operator" as const, local: true, attended: true };
const PRICED = ['[fermix_core.pricing."openai/gpt-5.5"]', "input_per_mtok = 1", "output_per_mtok = 10"];

describe("a due scheduled job over budget", () => {
  test("the scheduler records its run as `budget`, and no request reaches the provider", async () => {
    const h = tempHome();
    defer(() => h[Symbol.asyncDispose]());
    const llm = await startFakeOpenAIResponses({ apiKey: KEY });
    defer(() => llm.close());
    h.writeConfig([...PRICED, ""].join("\n"));
    const app = await createApp({
      env: { FERMIX_HOME: h.home, HOME: h.userHome, OPENAI_API_KEY: KEY, OPENAI_BASE_URL: llm.baseUrl },
    });
    defer(() => app.close());
    const jobs = await app.jobs();
    // Due a moment from now: the scheduler's own timer fires it (a one-off runs late rather than being dropped).
    const due = new Date(Date.now() + 1_000).toISOString();
    llm.enqueue(
      {
        kind: "tool_calls",
        calls: [{ name: "schedule_job", arguments: { name: "digest", schedule: due, task: "t" } }],
      },
      { kind: "text", text: "Scheduled.", usage: { input: 10_000, cached: 0, output: 1_000, reasoning: 0 } },
    );
    await app.ask({ key: { channel: "cli", chat: "s" }, caller: owner, text: "schedule it" });
    const [job] = jobs.store.list();
    expect(job).toBeDefined();
    // Now the day's budget is below what that ask spent; the config is read live.
    h.writeConfig([...PRICED, "[fermix_core.budget]", "daily_usd = 0.000001", ""].join("\n"));
    const asked = llm.requests.length;
    await jobs.start();
    defer(() => jobs.stop());
    const settled = () => jobs.store.runs(job!.id).some((r) => r.status !== "queued" && r.status !== "running");
    await until(settled, 30_000);
    const [run] = jobs.store.runs(job!.id);
    expect(run).toMatchObject({ status: "budget", trigger: "schedule" });
    expect(run!.error).toContain("daily_usd");
    expect(llm.requests.length).toBe(asked);
  });
});
