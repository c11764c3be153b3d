import { describe, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { createApp } from "../../src/app.ts";
import { startFakeAnthropic, startFakeOpenAIResponses } from "../fake/llm.ts";
import type { FakeLlm } from "../fake/types.ts";
import { cleanupAfterEach } from "../fixture/cleanup.ts";
import { tempHome } from "../fixture/home.ts";
import { toolOutputs } from "../fixture/tool-outputs.ts";

const OPENAI_KEY = "sk-test-oneshot-openai-0123456789";
const ANTHROPIC_KEY = "sk-ant-test-oneshot-0123456789";
const SUB = "You are a focused sub-agent";
const defer = cleanupAfterEach();

/** OpenAI is primary, Anthropic a configured fallback; Mistral is known to fermix but not configured here. */
async function setup() {
  const h = tempHome();
  const openai = await startFakeOpenAIResponses({ apiKey: OPENAI_KEY });
  const anthropic = await startFakeAnthropic({ apiKey: ANTHROPIC_KEY });
  defer(() => h[Symbol.asyncDispose]());
  defer(() => openai.close());
  defer(() => anthropic.close());
  const config = h.writeConfig(`[fermix_core.providers.openai]
primary = true
api_key = "${OPENAI_KEY}"
base_url = "${openai.baseUrl}"

[fermix_core.providers.anthropic]
api_key = "${ANTHROPIC_KEY}"
base_url = "${anthropic.baseUrl}"
`);
  const app = await createApp({ env: { FERMIX_HOME: h.home, HOME: h.userHome } });
  defer(() => app.close());
  // Sub-agents answer with the model they were asked for; the main agent repeats what its tools returned.
  const answer = (fake: FakeLlm) =>
    fake.setDefault((req) =>
      String(JSON.stringify(req.body.system ?? req.body.instructions)).includes(SUB)
        ? { kind: "text", text: `sub-agent on ${req.body.model}` }
        : { kind: "text", text: toolOutputs(req).join("\n") || "main" },
    );
  answer(openai);
  answer(anthropic);
  const fanOut = async (args: Record<string, unknown>) => {
    openai.enqueue({
      kind: "tool_calls",
      calls: [{ name: "subagents", arguments: { tasks: [{ task: "t" }], ...args } }],
    });
    return (
      await app.ask({
        key: { channel: "cli", chat: "c" },
        caller: { trust: "operator", local: true, attended: true },
        text: "delegate",
      })
    ).response;
  };
  const subRequests = (fake: FakeLlm) => fake.requests.filter((r) => JSON.stringify(r.body).includes(SUB));
  return { h, openai, anthropic, fanOut, subRequests, config };
}

describe("subagents with a one-shot model", () => {
  test("a model for the call reaches the sub-agent's request; the main agent keeps its own", async () => {
    const { openai, fanOut, subRequests } = await setup();
    const reply = await fanOut({ model: "gpt-5.4-mini" });
    expect(reply).toContain("## Task 1\nsub-agent on gpt-5.4-mini");
    expect(subRequests(openai).map((r) => r.body.model)).toEqual(["gpt-5.4-mini"]);
    const main = openai.requests.filter((r) => !JSON.stringify(r.body).includes(SUB));
    expect(main.map((r) => r.body.model)).toEqual(["gpt-5.5", "gpt-5.5"]);

    // One call only: the next subagents call without a model is back on the usual route.
    const again = await fanOut({});
    expect(again).toContain("sub-agent on gpt-5.5");
  });

  test("a provider for the call runs its sub-agents there, with the model asked for", async () => {
    const { openai, anthropic, fanOut, subRequests } = await setup();
    const reply = await fanOut({ provider: "anthropic", model: "claude-haiku-4-5" });
    expect(reply).toContain("sub-agent on claude-haiku-4-5");
    expect(subRequests(anthropic).map((r) => r.body.model)).toEqual(["claude-haiku-4-5"]);
    expect(subRequests(openai)).toEqual([]);
    // Only a provider: that provider's default model.
    expect(await fanOut({ provider: "anthropic" })).toContain("sub-agent on claude-sonnet-4-6");
  });

  test.each([
    [
      "a model another provider serves, without that provider",
      { model: "claude-haiku-4-5" },
      'subagents not started: model: "claude-haiku-4-5" is not served by openai (a model without a provider runs on the primary); pass provider: "anthropic" with it, or pick a model openai serves',
    ],
    [
      "a mis-paired provider and model",
      { provider: "anthropic", model: "gpt-5.4-mini" },
      'subagents not started: model: "gpt-5.4-mini" is not served by anthropic; pass provider: "openai" with it',
    ],
    [
      "a provider that is not configured",
      { provider: "mistral", model: "mistral-small-latest" },
      "subagents not started: provider: mistral is not configured here (configured: openai, anthropic); pass one of those, or leave provider out to use the primary. The owner can set mistral up with: fermix setup --provider mistral",
    ],
    [
      "an unknown provider",
      { provider: "acme" },
      'subagents not started: provider: "acme" is not a provider fermix knows',
    ],
  ])("%s is refused before any sub-agent starts, and config.toml is untouched", async (_name, args, message) => {
    const { openai, anthropic, fanOut, subRequests, config } = await setup();
    const before = readFileSync(config, "utf8");
    const reply = await fanOut(args);
    expect(reply).toContain(message);
    expect(subRequests(openai)).toEqual([]);
    expect(subRequests(anthropic)).toEqual([]);
    expect(readFileSync(config, "utf8")).toBe(before);
  });
});
