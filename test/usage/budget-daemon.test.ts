import { describe, expect, test } from "bun:test";
import { startFakeOpenAIResponses } from "../fake/llm.ts";
import { cleanupAfterEach } from "../fixture/cleanup.ts";
import { runFermix, startFermixDaemon } from "../fixture/cli.ts";
import { tempHome } from "../fixture/home.ts";

/*
 * Budgets through the compiled binary, a running daemon and a fake OpenAI on loopback: the 80 % notice once, the
 * refusal (exit 5, no request), a job's run recorded as `budget`, and a raised limit that applies without a restart.
 */

const KEY = "sk-test-budget-0123456789abcdef";
const defer = cleanupAfterEach();
const TINY = { input: 1, cached: 0, output: 1, reasoning: 0 };

function configWith(dailyUsd?: number): string {
  return [
    "[fermix_core.providers.openai]",
    'api_key = "$OPENAI_API_KEY"',
    "[fermix_core.personalization]",
    'timezone = "Europe/Berlin"',
    '[fermix_core.pricing."openai/gpt-5.5"]',
    "input_per_mtok = 2",
    "output_per_mtok = 10",
    ...(dailyUsd === undefined ? [] : ["[fermix_core.budget]", `daily_usd = ${dailyUsd}`]),
    "",
  ].join("\n");
}

describe("budgets that hold (compiled binary, fake provider)", () => {
  test("notice at 80 % once; at 100 % ask exits 5 unsent and a job run is `budget`; a raised limit lets the next ask through", async () => {
    const h = tempHome();
    const fake = await startFakeOpenAIResponses({ apiKey: KEY });
    defer(() => h[Symbol.asyncDispose]());
    defer(() => fake.close());
    h.writeConfig(configWith());
    const env = { FERMIX_HOME: h.home, HOME: h.userHome, OPENAI_API_KEY: KEY, OPENAI_BASE_URL: fake.baseUrl };
    // The CLI holds no key: every ask goes through the daemon, which reads config.toml live.
    const cli = { FERMIX_HOME: h.home, HOME: h.userHome };
    const daemon = await startFermixDaemon(env);
    defer(() => daemon.stop());
    const ask = (text: string) => runFermix(["ask", text], { env: cli });
    const spentUsd = async () => {
      const r = await runFermix(["usage", "--json"], { env: cli });
      expect(r.code).toBe(0);
      return JSON.parse(r.stdout).result.total.cost_usd as number;
    };

    fake.enqueue({
      kind: "tool_calls",
      calls: [{ name: "schedule_job", arguments: { name: "digest", schedule: "every 1 days", task: "Summarise." } }],
    });
    fake.enqueue({ kind: "text", text: "scheduled", usage: { input: 10_000, cached: 0, output: 1_000, reasoning: 0 } });
    expect((await ask("schedule a daily digest")).code).toBe(0);
    const listed = JSON.parse((await runFermix(["jobs", "list", "--json"], { env: cli })).stdout).result.jobs;
    const jobId = listed[0].id as string;
    const spent = await spentUsd();
    expect(spent).toBeGreaterThan(0.01);

    // 85 % spent: the next ask carries the notice on stderr, the one after it does not.
    h.writeConfig(configWith(spent / 0.85));
    fake.enqueue({ kind: "text", text: "one", usage: TINY });
    const noticed = await ask("first");
    expect(noticed.code).toBe(0);
    expect(noticed.stderr).toContain("85 % of the daily budget is spent");
    fake.enqueue({ kind: "text", text: "two", usage: TINY });
    const quiet = await ask("second");
    expect({ code: quiet.code, stderr: quiet.stderr }).toEqual({ code: 0, stderr: "" });

    // Below what was spent: refused before any request, exit 5, with the sentence.
    h.writeConfig(configWith(0.000001));
    const before = fake.requests.length;
    const refused = await ask("third");
    expect(refused.code).toBe(5);
    expect(refused.stderr).toContain("The daily budget is used up:");
    expect(refused.stderr).toContain("of $0.0000010 today");
    expect(refused.stderr).toContain("Europe/Berlin");
    expect(refused.stderr).toContain("[fermix_core.budget] daily_usd");
    expect(fake.requests.length).toBe(before);

    // A job's run is recorded as `budget`, and the fake hears nothing of it.
    expect((await runFermix(["jobs", "run", jobId], { env: cli })).code).toBe(0);
    let runs: Array<{ status: string; error: string | null }> = [];
    const end = Date.now() + 30_000;
    while (!runs.some((r) => r.status === "budget")) {
      if (Date.now() > end) throw new Error(`no budget run: ${JSON.stringify(runs)}`);
      runs = JSON.parse((await runFermix(["jobs", "runs", jobId, "--json"], { env: cli })).stdout).result.runs;
    }
    expect(runs[0]!.error).toContain("The daily budget is used up");
    expect(fake.requests.length).toBe(before);

    // Raised: the running daemon lets the next ask through.
    h.writeConfig(configWith(100));
    fake.enqueue({ kind: "text", text: "back", usage: TINY });
    const through = await ask("fourth");
    expect({ code: through.code, stdout: through.stdout }).toEqual({ code: 0, stdout: "back\n" });
    expect(fake.requests.length).toBe(before + 1);
    expect(await daemon.stop()).toBe(0);
  }, 90_000);
});
