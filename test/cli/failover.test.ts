import { describe, expect, test } from "bun:test";
import { startFakeAnthropic, startFakeOpenAIResponses } from "../fake/llm.ts";
import { cleanupAfterEach } from "../fixture/cleanup.ts";
import { runFermix } from "../fixture/cli.ts";
import { tempHome } from "../fixture/home.ts";

const OPENAI_KEY = "sk-test-openai-0123456789abcdef";
const ANTHROPIC_KEY = "sk-ant-test-0123456789abcdef";
const defer = cleanupAfterEach();

/** OpenAI is the primary (catalog order, zero config), Anthropic the fallback. */
async function twoProviders(openaiKey = OPENAI_KEY) {
  const h = tempHome();
  const openai = await startFakeOpenAIResponses({ apiKey: OPENAI_KEY });
  const anthropic = await startFakeAnthropic({ apiKey: ANTHROPIC_KEY });
  anthropic.setDefault({ kind: "text", text: "answer from the fallback" });
  defer(() => h[Symbol.asyncDispose]());
  defer(() => openai.close());
  defer(() => anthropic.close());
  const env = {
    FERMIX_HOME: h.home,
    HOME: h.userHome,
    OPENAI_API_KEY: openaiKey,
    OPENAI_BASE_URL: openai.baseUrl,
    ANTHROPIC_API_KEY: ANTHROPIC_KEY,
    ANTHROPIC_BASE_URL: anthropic.baseUrl,
  };
  return { h, openai, anthropic, env };
}

describe("failover through the binary", () => {
  test("a primary that answers 503 every time: the reply comes from the fallback", async () => {
    const { openai, anthropic, env } = await twoProviders();
    openai.setDefault({ kind: "error", status: 503 });
    const r = await runFermix(["ask", "ping"], { env });
    expect(r).toEqual({ code: 0, stdout: "answer from the fallback\n", stderr: "" });
    // Three tries on the primary (one plus two retries), then one on the fallback.
    expect(openai.requests).toHaveLength(3);
    expect(anthropic.requests).toHaveLength(1);
  });

  test("a primary that answers 401: no failover, and the error says how to fix the key", async () => {
    const { h, openai, anthropic, env } = await twoProviders("sk-wrong-key-0123456789abcdef");
    const r = await runFermix(["ask", "ping"], { env });
    expect(r.code).toBe(1);
    expect(r.stdout).toBe("");
    expect(r.stderr).toContain("fermix: OpenAI rejected the API key (HTTP 401); set OPENAI_API_KEY in the environment");
    expect(r.stderr).toContain("[fermix_core.providers.openai]");
    expect(r.stderr).not.toContain("sk-wrong-key-0123456789abcdef");
    expect(openai.requests).toHaveLength(1);
    expect(anthropic.requests).toHaveLength(0);
    // Nor did the key reach the log.
    const log = await Bun.file(`${h.home}/logs/fermix.log`)
      .text()
      .catch(() => "");
    expect(log).not.toContain("sk-wrong-key-0123456789abcdef");
  });

  test("a stream cut after visible text: no failover, nothing saved", async () => {
    const { openai, anthropic, env } = await twoProviders();
    openai.setDefault({ kind: "cut", text: "the beginning of an answ" });
    const r = await runFermix(["ask", "ping"], { env });
    expect(r.code).toBe(1);
    expect(r.stderr).toContain("fermix: the answer was cut off");
    expect(openai.requests).toHaveLength(1);
    expect(anthropic.requests).toHaveLength(0);
  });

  test("a rate limit with a reset time on every route reads as a usage limit", async () => {
    const { openai, anthropic, env } = await twoProviders();
    openai.setDefault({ kind: "error", status: 429, headers: { "retry-after": "600" } });
    anthropic.setDefault({ kind: "error", status: 429, headers: { "retry-after": "300" } });
    const r = await runFermix(["ask", "ping"], { env });
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/^fermix: usage limit — try again in ~[56] min \(Anthropic\)\n$/);
  });
});
