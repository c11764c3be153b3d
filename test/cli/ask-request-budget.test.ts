import { describe, expect, test } from "bun:test";
import { startFakeOpenAIResponses } from "../fake/llm.ts";
import { cleanupAfterEach } from "../fixture/cleanup.ts";
import { runFermix } from "../fixture/cli.ts";
import { DIRECT_TOOLS } from "../fixture/direct-tools.ts";
import { tempHome } from "../fixture/home.ts";

/*
 * Issue 27's request budget, on the compiled binary with the default config: the everyday built-ins travel as
 * full schemas (one round trip to use), and the whole `ask "ping"` body stays at most 15 KB — half of what
 * opencode sends for the same ask. A tool or description that grows past it fails here, not on a user's bill.
 */
const KEY = "sk-test-request-budget-0123456789";
const BUDGET_BYTES = 15_360;
const defer = cleanupAfterEach();

async function setup() {
  const h = tempHome();
  defer(() => h[Symbol.asyncDispose]());
  const fake = await startFakeOpenAIResponses({ apiKey: KEY });
  defer(() => fake.close());
  const env = { FERMIX_HOME: h.home, HOME: h.userHome, OPENAI_API_KEY: KEY, OPENAI_BASE_URL: fake.baseUrl };
  return { fake, env, cwd: h.userHome };
}

describe("fermix ask request budget (compiled binary, default config)", () => {
  test('ask "ping" carries the direct built-ins as function schemas in at most 15,360 bytes', async () => {
    const { fake, env, cwd } = await setup();
    const r = await runFermix(["ask", "ping"], { env, cwd });
    expect(r.stderr).toBe("");
    expect(r.code).toBe(0);
    expect(fake.requests).toHaveLength(1);
    const request = fake.requests[0]!;
    const tools = request.body.tools as { type: string; name: string; parameters: unknown }[];
    expect(tools.map((t) => t.name).sort()).toEqual([...DIRECT_TOOLS].sort());
    for (const tool of tools) {
      expect(tool.type).toBe("function");
      expect(tool.parameters).toMatchObject({ type: "object" });
    }
    expect(request.bytes).toBeGreaterThan(0);
    expect(request.bytes).toBeLessThanOrEqual(BUDGET_BYTES);
  });

  test("a turn that stores a memory takes exactly two model requests", async () => {
    const { fake, env, cwd } = await setup();
    fake.enqueue(
      {
        kind: "tool_calls",
        calls: [{ name: "memory_store", arguments: { category: "preference", key: "drink", value: "tea" } }],
      },
      { kind: "text", text: "I'll remember you prefer tea." },
    );
    const r = await runFermix(["ask", "remember that I prefer tea"], { env, cwd });
    expect(r.code).toBe(0);
    expect(r.stdout).toContain("I'll remember you prefer tea.");
    expect(fake.requests).toHaveLength(2);
    const output = fake.requests[1]!.body.input.find((i: { type: string }) => i.type === "function_call_output");
    expect(output.output).toContain("Stored preference drink = tea");
  });
});
