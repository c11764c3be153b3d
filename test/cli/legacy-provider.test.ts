import { describe, expect, test } from "bun:test";
import { startFakeAnthropic, startFakeOpenAIResponses } from "../fake/llm.ts";
import { cleanupAfterEach } from "../fixture/cleanup.ts";
import { runFermix } from "../fixture/cli.ts";
import { tempHome } from "../fixture/home.ts";

const OPENAI_KEY = "sk-test-openai-0123456789abcdef";
const ANTHROPIC_KEY = "sk-ant-test-0123456789abcdef";
const defer = cleanupAfterEach();

async function twoProviders(agent: string) {
  const h = tempHome();
  const openai = await startFakeOpenAIResponses({ apiKey: OPENAI_KEY });
  const anthropic = await startFakeAnthropic({ apiKey: ANTHROPIC_KEY });
  openai.setDefault({ kind: "text", text: "from openai" });
  anthropic.setDefault({ kind: "text", text: "from anthropic" });
  defer(() => h[Symbol.asyncDispose]());
  defer(() => openai.close());
  defer(() => anthropic.close());
  h.writeConfig(
    `[fermix_core.agent]\n${agent}\n[fermix_core.providers.openai]\napi_key = "$OPENAI_API_KEY"\n[fermix_core.providers.anthropic]\napi_key = "$ANTHROPIC_API_KEY"\n`,
  );
  const env = {
    FERMIX_HOME: h.home,
    HOME: h.userHome,
    OPENAI_API_KEY: OPENAI_KEY,
    OPENAI_BASE_URL: openai.baseUrl,
    ANTHROPIC_API_KEY: ANTHROPIC_KEY,
    ANTHROPIC_BASE_URL: anthropic.baseUrl,
  };
  return { env, openai, anthropic };
}

describe("the legacy [fermix_core.agent] provider through the binary", () => {
  test("with no primary flag it picks the provider a turn runs on", async () => {
    const { env, openai } = await twoProviders('provider = "anthropic"');
    const r = await runFermix(["ask", "ping"], { env });
    expect(r).toEqual({ code: 0, stdout: "from anthropic\n", stderr: "" });
    expect(openai.requests).toHaveLength(0);
  });

  test("an unknown value stops the ask at config load, naming the key", async () => {
    const { env, openai, anthropic } = await twoProviders('provider = "claude"');
    const r = await runFermix(["ask", "ping"], { env });
    expect(r.code).not.toBe(0);
    expect(r.stderr).toContain("[fermix_core.agent] provider: expected one of openai_codex, openai, anthropic");
    expect(r.stderr).toContain('got "claude"');
    expect(openai.requests.length + anthropic.requests.length).toBe(0);
  });
});
