import { Database } from "bun:sqlite";
import { describe, expect, test } from "bun:test";
import { join } from "node:path";
import { startFakeOpenAIResponses } from "../fake/llm.ts";
import { fermixBinary } from "../fixture/binary.ts";
import { cleanupAfterEach } from "../fixture/cleanup.ts";
import { runCommand, runFermix, startFermixDaemon } from "../fixture/cli.ts";
import { tempHome } from "../fixture/home.ts";

/*
 * The usage ledger through the compiled binary and a fake OpenAI on loopback: every model call is one row, `fermix
 * usage` adds them up with the configured price, and a daemon killed mid-turn neither loses nor doubles a row.
 */

const KEY = "sk-test-usage-0123456789abcdef";
const defer = cleanupAfterEach();
// USD per million tokens, set in config.toml: the cost the ledger must compute.
const PRICE = { input: 2, cached: 0.5, output: 10 };

async function setup() {
  const h = tempHome();
  const fake = await startFakeOpenAIResponses({ apiKey: KEY });
  defer(() => h[Symbol.asyncDispose]());
  defer(() => fake.close());
  h.writeConfig(
    [
      "[fermix_core.providers.openai]",
      'api_key = "$OPENAI_API_KEY"',
      "[fermix_core.personalization]",
      'timezone = "UTC"',
      '[fermix_core.pricing."openai/gpt-5.5"]',
      `input_per_mtok = ${PRICE.input}`,
      `cached_input_per_mtok = ${PRICE.cached}`,
      `output_per_mtok = ${PRICE.output}`,
      "",
    ].join("\n"),
  );
  const env = { FERMIX_HOME: h.home, HOME: h.userHome, OPENAI_API_KEY: KEY, OPENAI_BASE_URL: fake.baseUrl };
  const fermix = async (...args: string[]) => {
    const r = await runFermix(args, { env });
    expect({ args, code: r.code, stderr: r.stderr }).toEqual({ args, code: 0, stderr: "" });
    return r.stdout;
  };
  const usage = async (...args: string[]) => JSON.parse(await fermix("usage", "--json", ...args)).result;
  const ledgerRows = () => {
    const db = new Database(join(h.home, "memory.db"), { readonly: true });
    const rows = db.query("SELECT * FROM usage_ledger ORDER BY id").all() as any[];
    db.close();
    return rows;
  };
  return { h, fake, env, fermix, usage, ledgerRows };
}

const micros = (u: { input: number; cached: number; output: number }) =>
  (u.input - u.cached) * PRICE.input + u.cached * PRICE.cached + u.output * PRICE.output;

describe("fermix usage", () => {
  test("three asks: the totals are the fake's tokens and the cost is tokens × the configured price", async () => {
    const { fake, fermix, usage } = await setup();
    const reported = [
      { input: 1200, cached: 200, output: 80, reasoning: 16 },
      { input: 2500, cached: 1000, output: 150, reasoning: 0 },
      { input: 900, cached: 0, output: 40, reasoning: 8 },
    ];
    for (const u of reported) fake.enqueue({ kind: "text", text: "ok", usage: u });
    for (const n of [1, 2, 3]) expect(await fermix("ask", "-s", "sess_a", `question ${n}`)).toBe("ok\n");

    const sum = (k: "input" | "cached" | "output" | "reasoning") => reported.reduce((a, u) => a + u[k], 0);
    const cost = reported.reduce((a, u) => a + micros(u), 0) / 1_000_000;
    const result = await usage();
    expect(result.total).toEqual({
      input_tokens: sum("input"),
      cached_input_tokens: sum("cached"),
      output_tokens: sum("output"),
      reasoning_tokens: sum("reasoning"),
      calls: 3,
      cost_usd: cost,
    });
    expect(result.rows).toEqual([{ group: expect.stringMatching(/^\d{4}-\d{2}-\d{2}$/), ...result.total }]);

    // A model with no price counts its tokens, and its cost (and any total that includes it) is unknown.
    fake.enqueue({ kind: "text", text: "ok", usage: { input: 300, cached: 0, output: 30, reasoning: 0 } });
    expect(await fermix("ask", "--model", "some-unknown-model", "one more")).toBe("ok\n");
    const byModel = await usage("--by", "model");
    expect(byModel.rows.map((r: any) => [r.group, r.calls, r.input_tokens, r.cost_usd])).toEqual([
      ["openai/gpt-5.5", 3, sum("input"), cost],
      ["openai/some-unknown-model", 1, 300, null],
    ]);
    expect(byModel.total).toMatchObject({ calls: 4, input_tokens: sum("input") + 300, cost_usd: null });
    const table = await fermix("usage", "--by", "model");
    expect(table).toContain("openai/some-unknown-model");
    expect(table).toMatch(/\ntotal\s+4\s+4,900\s.*unknown\n/);

    // `/usage` from `fermix ask -s`: this session's and today's figures, no model asked.
    const asked = fake.requests.length;
    const report = await fermix("ask", "-s", "sess_a", "/usage");
    expect(report).toStartWith(
      `This session: 4,600 in (1,200 cached) · 270 out (24 reasoning) · 3 calls · $${cost.toFixed(4)}\n`,
    );
    expect(report).toContain("Today (");
    expect(report).toContain("4,900 in");
    expect(fake.requests.length).toBe(asked);
  }, 60_000);

  test("--since and --by are checked, with the forms they take", async () => {
    const { env } = await setup();
    const bad = await runFermix(["usage", "--since", "yesterday"], { env });
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain("--since takes 24h, 7d, 30d");
    const json = await runFermix(["usage", "--since", "2026-02-31", "--json"], { env });
    expect(json.code).toBe(2);
    expect(JSON.parse(json.stdout).error.code).toBe("usage");
  }, 30_000);

  test("kill -9 mid-turn: every ledger row is a call the fake answered, none counted twice after the restart", async () => {
    const { fake, env, ledgerRows } = await setup();
    const daemon = await startFermixDaemon(env);
    defer(() => daemon.stop());
    // The first call answers with a tool call (the model's estimate of tokens), the second hangs.
    fake.enqueue({ kind: "tool_calls", calls: [{ name: "no_such_tool", arguments: {} }] }, { kind: "hang" });
    // --daemon: the ask must not fall back to an in-process turn when the daemon dies under it.
    const ask = Bun.spawn([await fermixBinary(), "ask", "--daemon", "-s", "sess_k", "start"], {
      env: { ...env, PATH: "/usr/bin:/bin" },
      stdout: "ignore",
      stderr: "ignore",
    });
    await fake.waitForRequests(2);
    process.kill(daemon.pid, "SIGKILL");
    await daemon.exited;
    expect(await ask.exited).not.toBe(0);
    expect(fake.requests).toHaveLength(2);
    // The answered call was paid for though its turn never committed: one row; the hung one has none.
    const afterKill = ledgerRows();
    expect(afterKill).toHaveLength(1);
    expect(afterKill[0]).toMatchObject({ session_id: "sess_k", kind: "main", provider: "openai", model: "gpt-5.5" });
    expect(afterKill[0].input_tokens).toBeGreaterThan(0);

    const next = await startFermixDaemon(env);
    defer(() => next.stop());
    fake.enqueue({ kind: "text", text: "done", usage: { input: 700, cached: 100, output: 20, reasoning: 0 } });
    const finished = await runCommand([await fermixBinary(), "ask", "-s", "sess_k", "finish"], {
      env: { ...env, PATH: "/usr/bin:/bin" },
    });
    expect(finished).toMatchObject({ code: 0, stdout: "done\n" });
    const rows = ledgerRows();
    // Three requests reached the fake; the hung one never completed: two calls, two rows, no duplicate.
    expect(fake.requests).toHaveLength(3);
    expect(rows).toHaveLength(2);
    expect(rows[0]).toEqual(afterKill[0]);
    expect(rows[1]).toMatchObject({ input_tokens: 700, cached_input_tokens: 100, output_tokens: 20 });
    expect(rows[1].cost_micros).toBe(micros({ input: 700, cached: 100, output: 20 }));
    expect(await next.stop()).toBe(0);
  }, 60_000);
});
