import { describe, expect, test } from "bun:test";
import { openaiChatWire as wire } from "../../../src/providers/wires/openai-chat.ts";
import { type Flavor, startFakeChatCompletions } from "../../fake/llm.ts";
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

const KEY = "sk-or-v1-chat-test-0123456789abcdef";
const MODEL = "mistral-large-latest";
const started = fakesClosedAfterEach();
const PROVIDERS = [
  ["openrouter", "openrouter"],
  ["mistral", "mistral"],
  ["ollama", "ollama"],
] as const satisfies ReadonlyArray<readonly [string, Flavor]>;

async function setup(provider: string, flavor: Flavor, receiveTimeoutMs?: number) {
  const fake = await started(startFakeChatCompletions({ apiKey: KEY, flavor }));
  const target = targetFor(provider, fake.baseUrl, provider === "ollama" ? undefined : KEY, receiveTimeoutMs);
  return { fake, target };
}

describe.each(PROVIDERS)("openai-chat wire (%s)", (provider, flavor) => {
  test("streamed text arrives as ordered deltas, then done with usage", async () => {
    const { fake, target } = await setup(provider, flavor);
    fake.enqueue({ kind: "text", text: "Lyon is rainy today.", chunks: ["Lyon ", "is ", "rainy ", "today."] });
    const out = await drain(wire, { target, request: request(MODEL) });
    expect(out.deltas).toEqual(["Lyon ", "is ", "rainy ", "today."]);
    expect(out.done?.stopReason).toBe("stop");
    expect(out.done?.usage?.inputTokens).toBeGreaterThan(0);
    expect(out.done?.usage?.outputTokens).toBeGreaterThan(0);
  });

  test("the request puts the system message first, nests tools and never sends reasoning", async () => {
    const { fake, target } = await setup(provider, flavor);
    await drain(wire, { target, request: request(MODEL, { tools: [WEATHER], effort: "high" }) });
    const [sent] = fake.requests;
    expect(sent!.path).toBe("/v1/chat/completions");
    expect(sent!.body).toMatchObject({
      model: MODEL,
      stream: true,
      messages: [
        { role: "system", content: "You are terse." },
        { role: "user", content: "What is the weather in Lyon?" },
      ],
      tools: [
        {
          type: "function",
          function: { name: WEATHER.name, description: WEATHER.description, parameters: WEATHER.parameters },
        },
      ],
    });
    expect(Object.keys(sent!.body).filter((k) => k.includes("reasoning"))).toEqual([]);
  });

  test("tool calls arrive whole with parsed arguments, and the follow-up history is accepted", async () => {
    const { fake, target } = await setup(provider, flavor);
    fake.enqueue({
      kind: "tool_calls",
      calls: [
        { name: "get_weather", arguments: WEATHER_ARGS },
        { name: "get_weather", arguments: { city: "Oslo" } },
      ],
    });
    const first = await drain(wire, { target, request: request(MODEL, { tools: [WEATHER] }) });
    expect(first.toolCalls).toEqual([
      { type: "tool_call", id: expect.any(String), name: "get_weather", arguments: WEATHER_ARGS },
      { type: "tool_call", id: expect.any(String), name: "get_weather", arguments: { city: "Oslo" } },
    ]);
    expect(new Set(first.toolCalls.map((c) => c.id)).size).toBe(2);
    expect(first.done?.stopReason).toBe("tool_use");

    // Words said beside the calls must not become a `content` key Mistral rejects.
    const messages = toolLoopHistory(first.toolCalls, "Checking.");
    const second = await drain(wire, { target, request: request(MODEL, { tools: [WEATHER], messages }) });
    expect(second.error).toBeUndefined();
    expect(second.text).toBe("pong");
    const sent = fake.requests[1]!.body.messages;
    expect(sent.map((m: any) => m.role)).toEqual(["system", "user", "assistant", "tool", "tool"]);
    expect(sent[2]).not.toHaveProperty("content");
    expect(sent[3]).toEqual({ role: "tool", tool_call_id: first.toolCalls[0]!.id, content: "12°C, light rain" });
  });

  test("HTTP errors are classified with status and provider", async () => {
    const { fake, target } = await setup(provider, flavor);
    const cases = [
      [{ status: 400, code: "context_length_exceeded" }, "context_length"],
      [{ status: 404 }, "invalid_request"],
      [{ status: 500 }, "transient"],
      [{ status: 503 }, "transient"],
      [{ status: 429 }, "rate_limit"],
    ] as const;
    for (const [reply, cls] of cases) {
      fake.enqueue({ kind: "error", ...reply });
      const { error } = await drain(wire, { target, request: request(MODEL) });
      expect({ reply, error }).toMatchObject({ reply, error: { class: cls, status: reply.status, provider } });
    }
  });

  test("a closed port is a transient failure", async () => {
    const baseUrl = await closedPort(() => startFakeChatCompletions({ flavor }));
    const { error } = await drain(wire, { target: targetFor(provider, baseUrl, KEY), request: request(MODEL) });
    expect(error).toMatchObject({ class: "transient", provider });
    expect(error!.message).toContain(`could not reach ${provider}`);
  });

  test("faults: hang times out, cut ends in a transient error, empty is done", async () => {
    const { fake, target } = await setup(provider, flavor, 300);
    fake.enqueue({ kind: "hang" });
    const hung = await drain(wire, { target, request: request(MODEL) });
    expect(hung.error).toMatchObject({ class: "transient", message: `${provider} sent nothing for 300 ms` });

    fake.enqueue({ kind: "cut", text: "The forecast for Lyon is" });
    const cut = await drain(wire, { target, request: request(MODEL) });
    expect(cut.deltas.length).toBeGreaterThan(1);
    expect(cut.text).toBe("The forecast for Lyon is");
    expect(cut.error).toMatchObject({ class: "transient", provider });

    fake.enqueue({ kind: "empty" });
    const empty = await drain(wire, { target, request: request(MODEL) });
    expect(empty.deltas).toEqual([]);
    expect(empty.done?.stopReason).toBe("stop");
  });

  test("aborting mid-stream ends with cancelled, not done", async () => {
    const { fake, target } = await setup(provider, flavor);
    fake.enqueue({ kind: "text", text: "one two three four", chunks: ["one ", "two ", "three ", "four"] });
    const abort = new AbortController();
    const out = await drain(wire, { target, request: request(MODEL), signal: abort.signal }, () => abort.abort());
    expect(out.deltas).toEqual(["one "]);
    expect(out.error).toMatchObject({ class: "cancelled", provider });
  });
});

describe("openai-chat wire: provider specifics", () => {
  test("OpenRouter requests carry the attribution headers and the bearer key", async () => {
    const { fake, target } = await setup("openrouter", "openrouter");
    await drain(wire, { target, request: request(MODEL) });
    expect(fake.requests[0]!.headers).toMatchObject({
      "http-referer": "https://fermix.sh",
      "x-title": "Fermix",
      authorization: `Bearer ${KEY}`,
    });
  });

  test("Ollama requests carry no Authorization header", async () => {
    const { fake, target } = await setup("ollama", "ollama");
    await drain(wire, { target, request: request(MODEL) });
    expect(fake.requests[0]!.headers).not.toHaveProperty("authorization");
  });

  test("a wrong key is an auth failure on OpenRouter and Mistral", async () => {
    for (const flavor of ["openrouter", "mistral"] as const) {
      const fake = await started(startFakeChatCompletions({ apiKey: KEY, flavor }));
      const target = targetFor(flavor, fake.baseUrl, "sk-not-the-right-key-0123456789");
      const { error } = await drain(wire, { target, request: request(MODEL) });
      expect(error).toMatchObject({ class: "auth", status: 401, provider: flavor });
      expect(error!.message).toContain(flavor);
    }
  });

  test("OpenRouter's x-ratelimit-reset (epoch ms) becomes retryAt", async () => {
    const { fake, target } = await setup("openrouter", "openrouter");
    fake.enqueue({ kind: "error", status: 429, headers: { "x-ratelimit-reset": String(NOW + 42_000) } });
    const { error } = await drain(wire, { target, request: request(MODEL) });
    expect(error).toMatchObject({ class: "rate_limit", status: 429, retryAt: NOW + 42_000, vendorCode: "429" });
  });

  test("a 429 with retry-after on Mistral becomes retryAt", async () => {
    const { fake, target } = await setup("mistral", "mistral");
    fake.enqueue({ kind: "error", status: 429, headers: { "retry-after": "30" } });
    const { error } = await drain(wire, { target, request: request(MODEL) });
    expect(error).toMatchObject({ class: "rate_limit", retryAt: NOW + 30_000, vendorCode: "1300" });
  });
});
