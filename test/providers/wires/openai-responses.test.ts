import { describe, expect, test } from "bun:test";
import { openaiResponsesWire as wire } from "../../../src/providers/wires/openai-responses.ts";
import { startFakeOpenAIResponses } from "../../fake/llm.ts";
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

const KEY = "sk-proj-responses-test-0123456789abcdef";
const MODEL = "gpt-5-mini";
const started = fakesClosedAfterEach();

async function setup(provider = "openai", receiveTimeoutMs?: number) {
  const fake = await started(startFakeOpenAIResponses({ apiKey: KEY }));
  return { fake, target: targetFor(provider, fake.baseUrl, KEY, receiveTimeoutMs) };
}

describe("openai-responses wire", () => {
  test.each(["openai", "xai"])(
    "%s: streamed text arrives as ordered deltas, then done with usage",
    async (provider) => {
      const { fake, target } = await setup(provider);
      fake.enqueue({ kind: "text", text: "Lyon is rainy today.", chunks: ["Lyon ", "is ", "rainy ", "today."] });
      const out = await drain(wire, { target, request: request(MODEL) });
      expect(out.deltas).toEqual(["Lyon ", "is ", "rainy ", "today."]);
      expect(out.done?.stopReason).toBe("stop");
      expect(out.done?.usage?.inputTokens).toBeGreaterThan(0);
      expect(out.done?.usage?.outputTokens).toBeGreaterThan(0);
    },
  );

  test("the request carries instructions, input, stream, store: false, flat tools and no reasoning", async () => {
    const { fake, target } = await setup();
    await drain(wire, { target, request: request(MODEL, { tools: [WEATHER] }) });
    const [sent] = fake.requests;
    expect(sent!.path).toBe("/v1/responses");
    expect(sent!.headers.authorization).toBe(`Bearer ${KEY}`);
    expect(sent!.body).toMatchObject({
      model: MODEL,
      instructions: "You are terse.",
      input: [{ role: "user", content: [{ type: "input_text", text: "What is the weather in Lyon?" }] }],
      stream: true,
      store: false,
      tools: [
        { type: "function", name: WEATHER.name, description: WEATHER.description, parameters: WEATHER.parameters },
      ],
    });
    expect(sent!.body).not.toHaveProperty("reasoning");
  });

  test("an effort becomes reasoning.effort, with a summary asked for", async () => {
    const { fake, target } = await setup();
    await drain(wire, { target, request: request(MODEL, { effort: "high" }) });
    expect(fake.requests[0]!.body.reasoning).toEqual({ effort: "high", summary: "auto" });
  });

  test("an effort of none asks for no summary (there is no reasoning to summarise)", async () => {
    const { fake, target } = await setup();
    await drain(wire, { target, request: request(MODEL, { effort: "none" }) });
    expect(fake.requests[0]!.body.reasoning).toEqual({ effort: "none" });
  });

  test("each summary part arrives once, whole, before the answer's text; the reasoning item keeps it", async () => {
    const { fake, target } = await setup();
    const summary = ["**Reading the forecast**\n\nLyon, today.", "**Answering**\n\nOne line."];
    fake.enqueue({ kind: "text", text: "Lyon is rainy.", reasoning: summary });
    const out = await drain(wire, { target, request: request(MODEL, { effort: "low" }) });
    const kinds = out.events.map((e) => e.type);
    expect(out.events.flatMap((e) => (e.type === "reasoning_summary" ? [e.text] : []))).toEqual(summary);
    expect(kinds.lastIndexOf("reasoning_summary")).toBeLessThan(kinds.indexOf("text_delta"));
    expect(out.text).toBe("Lyon is rainy.");
    const reasoning = out.events.find((e) => e.type === "reasoning");
    expect(reasoning).toMatchObject({ part: { wire: "openai-responses", data: { type: "reasoning" } } });
  });

  test("tool calls arrive whole with parsed arguments, and the follow-up history is accepted", async () => {
    const { fake, target } = await setup();
    fake.enqueue({
      kind: "tool_calls",
      text: "Checking.",
      calls: [
        { name: "get_weather", arguments: WEATHER_ARGS },
        { name: "get_weather", arguments: { city: "Oslo" } },
      ],
    });
    const first = await drain(wire, { target, request: request(MODEL, { tools: [WEATHER] }) });
    expect(first.text).toBe("Checking.");
    expect(first.toolCalls).toEqual([
      { type: "tool_call", id: expect.stringMatching(/^call_/), name: "get_weather", arguments: WEATHER_ARGS },
      { type: "tool_call", id: expect.stringMatching(/^call_/), name: "get_weather", arguments: { city: "Oslo" } },
    ]);
    expect(first.done?.stopReason).toBe("tool_use");

    const messages = toolLoopHistory(first.toolCalls, first.text);
    const second = await drain(wire, { target, request: request(MODEL, { tools: [WEATHER], messages }) });
    expect(second.error).toBeUndefined();
    expect(second.text).toBe("pong");
    const input = fake.requests[1]!.body.input;
    expect(input.map((item: any) => item.type ?? item.role)).toEqual([
      "user",
      "message",
      "function_call",
      "function_call",
      "function_call_output",
      "function_call_output",
    ]);
    expect(JSON.parse(input[2].arguments)).toEqual(WEATHER_ARGS);
  });

  test("a wrong key is an auth failure naming the provider", async () => {
    const fake = await started(startFakeOpenAIResponses({ apiKey: KEY }));
    const target = targetFor("openai", fake.baseUrl, "sk-proj-not-the-right-key-987654321");
    const { error } = await drain(wire, { target, request: request(MODEL) });
    expect(error).toMatchObject({ class: "auth", status: 401, provider: "openai", vendorCode: "invalid_api_key" });
    expect(error!.message).toContain("openai");
  });

  test("a 429 is a rate limit whose reset is the latest of retry-after and x-ratelimit-reset-*", async () => {
    const { fake, target } = await setup();
    const headers = { "retry-after": "5", "x-ratelimit-reset-requests": "1m30s", "x-ratelimit-reset-tokens": "250ms" };
    fake.enqueue({ kind: "error", status: 429, headers });
    const { error } = await drain(wire, { target, request: request(MODEL) });
    expect(error).toMatchObject({ class: "rate_limit", status: 429, provider: "openai", retryAt: NOW + 90_000 });
  });

  test.each([
    [{ status: 400, code: "context_length_exceeded" }, "context_length"],
    [{ status: 404 }, "invalid_request"],
    [{ status: 500 }, "transient"],
    [{ status: 503 }, "transient"],
  ] as const)("HTTP error %j is classified %s", async (reply, cls) => {
    const { fake, target } = await setup();
    fake.enqueue({ kind: "error", ...reply });
    const { error } = await drain(wire, { target, request: request(MODEL) });
    expect(error).toMatchObject({ class: cls, status: reply.status, provider: "openai" });
  });

  test("a closed port is a transient failure", async () => {
    const target = targetFor("openai", await closedPort(() => startFakeOpenAIResponses()), KEY);
    const { error } = await drain(wire, { target, request: request(MODEL) });
    expect(error).toMatchObject({ class: "transient", provider: "openai" });
    expect(error!.message).toContain("could not reach openai");
  });

  test("a server that never answers trips the receive timeout", async () => {
    const { fake, target } = await setup("openai", 300);
    fake.enqueue({ kind: "hang" });
    const { error } = await drain(wire, { target, request: request(MODEL) });
    expect(error).toMatchObject({ class: "transient", message: "openai sent nothing for 300 ms" });
  });

  test("a cut stream yields what arrived, then a transient error and never done", async () => {
    const { fake, target } = await setup();
    fake.enqueue({ kind: "cut", text: "The forecast for Lyon is" });
    const out = await drain(wire, { target, request: request(MODEL) });
    expect(out.deltas.length).toBeGreaterThan(1);
    expect(out.text).toBe("The forecast for Lyon is");
    expect(out.error).toMatchObject({ class: "transient", provider: "openai" });
    expect(out.done).toBeUndefined();
  });

  test("an empty answer is done with no text", async () => {
    const { fake, target } = await setup();
    fake.enqueue({ kind: "empty" });
    const out = await drain(wire, { target, request: request(MODEL) });
    expect(out.deltas).toEqual([]);
    expect(out.done?.stopReason).toBe("stop");
  });

  test("aborting mid-stream ends with cancelled, not done", async () => {
    const { fake, target } = await setup();
    fake.enqueue({ kind: "text", text: "one two three four", chunks: ["one ", "two ", "three ", "four"] });
    const abort = new AbortController();
    const out = await drain(wire, { target, request: request(MODEL), signal: abort.signal }, () => abort.abort());
    expect(out.deltas).toEqual(["one "]);
    expect(out.error).toMatchObject({ class: "cancelled", provider: "openai" });
  });
});
