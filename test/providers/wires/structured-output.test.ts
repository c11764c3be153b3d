/**
 * `ask --schema` on each wire: the request carries that wire's native structured output, the fakes accept it
 * as the real APIs would (strict only for a compliant schema, Anthropic objects closed), and the answer comes
 * back as text — from a forced answer tool on Claude models without `output_config.format`.
 */
import { describe, expect, test } from "bun:test";
import { SCHEMA_NAME } from "../../../src/providers/structured-output.ts";
import { ANSWER_TOOL } from "../../../src/providers/wires/_anthropic-schema.ts";
import { anthropicWire } from "../../../src/providers/wires/anthropic.ts";
import { openaiChatWire } from "../../../src/providers/wires/openai-chat.ts";
import { openaiResponsesWire } from "../../../src/providers/wires/openai-responses.ts";
import { startFakeAnthropic, startFakeChatCompletions, startFakeOpenAIResponses } from "../../fake/llm.ts";
import { drain, fakesClosedAfterEach, request, targetFor, WEATHER } from "./harness.ts";

const KEY = "sk-test-structured-0123456789abcdef";
const started = fakesClosedAfterEach();

/** What the concise form `name, age int` becomes: closed, every field required (strict-compatible). */
const CLOSED = {
  type: "object",
  properties: { name: { type: "string" }, age: { type: "integer" } },
  required: ["name", "age"],
  additionalProperties: false,
};
/** A schema with an optional field and no additionalProperties: valid, but not strict-compatible. */
const OPEN = {
  type: "object",
  properties: { name: { type: "string" }, age: { type: "integer", minimum: 0 } },
  required: ["name"],
};
const ANSWER = '{"name":"Ada","age":36}';

describe("Responses (openai, xai, codex)", () => {
  test("text.format carries name, schema and strict true for a compliant schema; the answer is the text", async () => {
    const fake = await started(startFakeOpenAIResponses({ apiKey: KEY }));
    fake.enqueue({ kind: "text", text: ANSWER });
    const target = targetFor("openai", fake.baseUrl, KEY);
    const out = await drain(openaiResponsesWire, { target, request: request("gpt-5.5", { schema: CLOSED }) });
    expect(out.text).toBe(ANSWER);
    expect(fake.requests[0]!.body.text).toEqual({
      format: { type: "json_schema", name: SCHEMA_NAME, schema: CLOSED, strict: true },
    });
  });

  test("a schema strict mode would refuse is sent with strict false, and accepted", async () => {
    const fake = await started(startFakeOpenAIResponses({ apiKey: KEY }));
    const target = targetFor("xai", fake.baseUrl, KEY);
    const out = await drain(openaiResponsesWire, { target, request: request("grok-4", { schema: OPEN }) });
    expect(out.error).toBeUndefined();
    expect(fake.requests[0]!.body.text.format).toMatchObject({ strict: false, schema: OPEN });
  });

  test("no schema, no text field", async () => {
    const fake = await started(startFakeOpenAIResponses({ apiKey: KEY }));
    await drain(openaiResponsesWire, { target: targetFor("openai", fake.baseUrl, KEY), request: request("gpt-5.5") });
    expect(fake.requests[0]!.body).not.toHaveProperty("text");
  });
});

describe("Chat Completions (openrouter, mistral, ollama)", () => {
  test.each(["openrouter", "mistral", "ollama"] as const)("%s: response_format json_schema", async (flavor) => {
    const fake = await started(startFakeChatCompletions({ apiKey: KEY, flavor }));
    fake.enqueue({ kind: "text", text: ANSWER });
    const target = targetFor(flavor, fake.baseUrl, flavor === "ollama" ? undefined : KEY);
    const out = await drain(openaiChatWire, { target, request: request("m-1", { schema: CLOSED }) });
    expect(out.text).toBe(ANSWER);
    expect(fake.requests[0]!.body.response_format).toEqual({
      type: "json_schema",
      json_schema: { name: SCHEMA_NAME, schema: CLOSED, strict: true },
    });
  });
});

describe("Anthropic", () => {
  test("a model with structured output gets output_config.format, objects closed, constraints told", async () => {
    const fake = await started(startFakeAnthropic({ apiKey: KEY }));
    fake.enqueue({ kind: "text", text: ANSWER });
    const target = targetFor("anthropic", fake.baseUrl, KEY);
    const req = request("claude-sonnet-4-6", { schema: OPEN, effort: "low", tools: [WEATHER] });
    const out = await drain(anthropicWire, { target, request: req });
    expect(out.text).toBe(ANSWER);
    const body = fake.requests[0]!.body;
    expect(body.output_config).toEqual({
      effort: "low",
      format: {
        type: "json_schema",
        schema: {
          type: "object",
          properties: { name: { type: "string" }, age: { type: "integer", description: "{minimum: 0}" } },
          required: ["name"],
          additionalProperties: false,
        },
      },
    });
    // Tools stay offered: structured output constrains only the final answer.
    expect(body.tools.map((t: { name: string }) => t.name)).toEqual([WEATHER.name]);
    expect(body).not.toHaveProperty("tool_choice");
  });

  test("an older model answers through a forced tool, whose input comes back as the answer text", async () => {
    const fake = await started(startFakeAnthropic({ apiKey: KEY }));
    fake.enqueue({ kind: "tool_calls", calls: [{ name: ANSWER_TOOL, arguments: { name: "Ada", age: 36 } }] });
    const target = targetFor("anthropic", fake.baseUrl, KEY);
    const out = await drain(anthropicWire, {
      target,
      request: request("claude-3-5-haiku-latest", { schema: OPEN, tools: [WEATHER] }),
    });
    expect(out.error).toBeUndefined();
    expect(JSON.parse(out.text)).toEqual({ name: "Ada", age: 36 });
    expect(out.toolCalls).toEqual([]);
    expect(out.done?.stopReason).toBe("stop");
    const body = fake.requests[0]!.body;
    expect(body.tools).toEqual([{ name: ANSWER_TOOL, description: expect.any(String), input_schema: OPEN }]);
    expect(body.tool_choice).toEqual({ type: "tool", name: ANSWER_TOOL });
    expect(body).not.toHaveProperty("output_config");
  });

  test("the fake refuses what the API refuses: an open object, or a model without structured output", async () => {
    const fake = await started(startFakeAnthropic({ apiKey: KEY }));
    const post = (body: Record<string, unknown>) =>
      fetch(`${fake.baseUrl}/v1/messages`, {
        method: "POST",
        headers: { "x-api-key": KEY, "anthropic-version": "2023-06-01", "content-type": "application/json" },
        body: JSON.stringify({ max_tokens: 100, messages: [{ role: "user", content: "hi" }], ...body }),
      }).then(async (r) => ({ status: r.status, body: (await r.json()) as any }));
    const open = await post({
      model: "claude-sonnet-4-6",
      output_config: { format: { type: "json_schema", schema: OPEN } },
    });
    expect(open.status).toBe(400);
    expect(open.body.error.message).toContain("'additionalProperties' must be explicitly set to false");
    const old = await post({
      model: "claude-3-5-haiku-latest",
      output_config: { format: { type: "json_schema", schema: CLOSED } },
    });
    expect(old.status).toBe(400);
    const thinking = await post({
      model: "claude-sonnet-4-6",
      thinking: { type: "adaptive" },
      tools: [{ name: "a", input_schema: { type: "object" } }],
      tool_choice: { type: "tool", name: "a" },
    });
    expect(thinking.body.error.message).toBe("Thinking may not be enabled when tool_choice forces tool use.");
  });
});
