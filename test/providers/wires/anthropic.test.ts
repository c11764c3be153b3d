import { describe, expect, test } from "bun:test";
import { anthropicWire as wire } from "../../../src/providers/wires/anthropic.ts";
import { startFakeAnthropic } from "../../fake/llm.ts";
import {
  closedPort,
  drain,
  fakesClosedAfterEach,
  NOW,
  request,
  targetFor,
  toolLoopHistory,
  WEATHER,
  WEATHER_ARGS,
} from "./harness.ts";

const KEY = "sk-ant-api03-anthropic-test-0123456789abcdef";
const SONNET = "claude-sonnet-4-6";
const HAIKU = "claude-haiku-4-5";
const started = fakesClosedAfterEach();

async function setup(receiveTimeoutMs?: number) {
  const fake = await started(startFakeAnthropic({ apiKey: KEY }));
  return { fake, target: targetFor("anthropic", fake.baseUrl, KEY, receiveTimeoutMs) };
}

describe("anthropic wire", () => {
  test("streamed text arrives as ordered deltas, then done with usage", async () => {
    const { fake, target } = await setup();
    fake.enqueue({ kind: "text", text: "Lyon is rainy today.", chunks: ["Lyon ", "is ", "rainy ", "today."] });
    const out = await drain(wire, { target, request: request(SONNET) });
    expect(out.deltas).toEqual(["Lyon ", "is ", "rainy ", "today."]);
    expect(out.done?.stopReason).toBe("stop");
    expect(out.done?.usage?.inputTokens).toBeGreaterThan(0);
    expect(out.done?.usage?.outputTokens).toBeGreaterThan(1);
  });

  test("the request carries the version, key, max_tokens, a cached system block and adaptive thinking", async () => {
    const { fake, target } = await setup();
    await drain(wire, { target, request: request(SONNET, { tools: [WEATHER] }) });
    const [sent] = fake.requests;
    expect(sent!.path).toBe("/v1/messages");
    expect(sent!.headers).toMatchObject({ "anthropic-version": "2023-06-01", "x-api-key": KEY });
    expect(sent!.headers).not.toHaveProperty("authorization");
    expect(sent!.body).toMatchObject({
      model: SONNET,
      max_tokens: 16384,
      stream: true,
      system: [{ type: "text", text: "You are terse.", cache_control: { type: "ephemeral" } }],
      tools: [{ name: WEATHER.name, description: WEATHER.description, input_schema: WEATHER.parameters }],
      thinking: { type: "adaptive" },
    });
    expect(sent!.body).not.toHaveProperty("output_config");
  });

  test("Haiku 4.5 gets no thinking field; an effort becomes output_config.effort", async () => {
    const { fake, target } = await setup();
    await drain(wire, { target, request: request(HAIKU) });
    await drain(wire, { target, request: request(SONNET, { effort: "low" }) });
    expect(fake.requests[0]!.body).not.toHaveProperty("thinking");
    expect(fake.requests[0]!.body).not.toHaveProperty("output_config");
    expect(fake.requests[1]!.body).toMatchObject({ thinking: { type: "adaptive" }, output_config: { effort: "low" } });
  });

  test("tool calls arrive whole with parsed arguments, and tool results ride back in a user turn", async () => {
    const { fake, target } = await setup();
    fake.enqueue({
      kind: "tool_calls",
      text: "Checking.",
      calls: [
        { name: "get_weather", arguments: WEATHER_ARGS },
        { name: "get_weather", arguments: { city: "Oslo" } },
      ],
    });
    const first = await drain(wire, { target, request: request(SONNET, { tools: [WEATHER] }) });
    expect(first.text).toBe("Checking.");
    expect(first.toolCalls).toEqual([
      { type: "tool_call", id: expect.stringMatching(/^toolu_01/), name: "get_weather", arguments: WEATHER_ARGS },
      { type: "tool_call", id: expect.stringMatching(/^toolu_01/), name: "get_weather", arguments: { city: "Oslo" } },
    ]);
    expect(first.done?.stopReason).toBe("tool_use");

    const messages = toolLoopHistory(first.toolCalls, first.text);
    const second = await drain(wire, { target, request: request(SONNET, { tools: [WEATHER], messages }) });
    expect(second.error).toBeUndefined();
    expect(second.text).toBe("pong");
    const sent = fake.requests[1]!.body.messages;
    expect(sent.map((m: any) => m.role)).toEqual(["user", "assistant", "user"]);
    expect(sent[1].content.map((b: any) => b.type)).toEqual(["text", "tool_use", "tool_use"]);
    expect(sent[2].content).toEqual([
      { type: "tool_result", tool_use_id: first.toolCalls[0]!.id, content: "12°C, light rain" },
      {
        type: "tool_result",
        tool_use_id: first.toolCalls[1]!.id,
        content: "12°C, light rain",
        cache_control: { type: "ephemeral" },
      },
    ]);
  });

  test("a wrong key is an auth failure naming the provider", async () => {
    const fake = await started(startFakeAnthropic({ apiKey: KEY }));
    const target = targetFor("anthropic", fake.baseUrl, "sk-ant-api03-not-the-right-key-0123456789");
    const { error } = await drain(wire, { target, request: request(SONNET) });
    expect(error).toMatchObject({ class: "auth", status: 401, provider: "anthropic" });
    expect(error!.message).toContain("anthropic");
  });

  test("a 429 is a rate limit whose reset is the latest of retry-after and anthropic-ratelimit-*-reset", async () => {
    const { fake, target } = await setup();
    const at = (ms: number) => new Date(NOW + ms).toISOString();
    const headers = {
      "retry-after": "3",
      "anthropic-ratelimit-requests-reset": at(75_000),
      "anthropic-ratelimit-tokens-reset": at(10_000),
    };
    fake.enqueue({ kind: "error", status: 429, headers });
    const { error } = await drain(wire, { target, request: request(SONNET) });
    expect(error).toMatchObject({
      class: "rate_limit",
      status: 429,
      retryAt: NOW + 75_000,
      vendorCode: "rate_limit_error",
    });
  });

  test.each([
    [{ status: 400, code: "context_length_exceeded" }, "context_length"],
    [{ status: 404 }, "invalid_request"],
    [{ status: 500 }, "transient"],
    [{ status: 503 }, "transient"],
    [{ status: 529 }, "transient"],
  ] as const)("HTTP error %j is classified %s", async (reply, cls) => {
    const { fake, target } = await setup();
    fake.enqueue({ kind: "error", ...reply });
    const { error } = await drain(wire, { target, request: request(SONNET) });
    expect(error).toMatchObject({ class: cls, status: reply.status, provider: "anthropic" });
  });

  test("a closed port is a transient failure", async () => {
    const target = targetFor("anthropic", await closedPort(() => startFakeAnthropic()), KEY);
    const { error } = await drain(wire, { target, request: request(SONNET) });
    expect(error).toMatchObject({ class: "transient", provider: "anthropic" });
    expect(error!.message).toContain("could not reach anthropic");
  });

  test("faults: hang times out, cut ends in a transient error, empty is done", async () => {
    const { fake, target } = await setup(300);
    fake.enqueue({ kind: "hang" });
    const hung = await drain(wire, { target, request: request(SONNET) });
    expect(hung.error).toMatchObject({ class: "transient", message: "anthropic sent nothing for 300 ms" });

    fake.enqueue({ kind: "cut", text: "The forecast for Lyon is" });
    const cut = await drain(wire, { target, request: request(SONNET) });
    expect(cut.deltas.length).toBeGreaterThan(1);
    expect(cut.text).toBe("The forecast for Lyon is");
    expect(cut.error).toMatchObject({ class: "transient", provider: "anthropic" });

    fake.enqueue({ kind: "empty" });
    const empty = await drain(wire, { target, request: request(SONNET) });
    expect(empty.deltas).toEqual([]);
    expect(empty.done?.stopReason).toBe("stop");
  });

  test("aborting mid-stream ends with cancelled, not done", async () => {
    const { fake, target } = await setup();
    fake.enqueue({ kind: "text", text: "one two three four", chunks: ["one ", "two ", "three ", "four"] });
    const abort = new AbortController();
    const out = await drain(wire, { target, request: request(SONNET), signal: abort.signal }, () => abort.abort());
    expect(out.deltas).toEqual(["one "]);
    expect(out.error).toMatchObject({ class: "cancelled", provider: "anthropic" });
  });
});
