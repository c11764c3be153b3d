/**
 * The signed-in fakes through the official SDKs: the Codex backend fake (Responses frames behind a ChatGPT
 * token) and the Anthropic fake serving a Claude subscription token. The SDKs' strict accumulators parse
 * everything they send, and requests shaped as the real services demand are the ones they accept.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import Anthropic from "@anthropic-ai/sdk";
import OpenAI from "openai";
import { type FakeCodex, startFakeCodex } from "./codex.ts";
import { type FakeLlm, startFakeAnthropic } from "./llm.ts";

const weather = { city: "Paris", days: 3 };

/** The SDKs return lazy promise subclasses; awaiting one is what sends the request. */
async function rejection(promise: PromiseLike<unknown>): Promise<unknown> {
  try {
    await promise;
  } catch (err) {
    return err;
  }
  throw new Error("the request was accepted");
}

describe("the Codex fake through the openai SDK", () => {
  const token = "chatgpt-access-token";
  let fake: FakeCodex;
  let client: OpenAI;
  beforeAll(async () => {
    fake = await startFakeCodex({ accessToken: token, accountId: "acct-1" });
    client = new OpenAI({
      apiKey: token,
      baseURL: fake.baseUrl,
      maxRetries: 0,
      defaultHeaders: { "chatgpt-account-id": "acct-1", originator: "pi" },
    });
  });
  afterAll(() => fake.close());

  test("responses.stream() accumulates text and function calls", async () => {
    fake.enqueue({ kind: "tool_calls", text: "Checking.", calls: [{ name: "weather", arguments: weather }] });
    const stream = client.responses.stream({
      model: "gpt-5.5",
      instructions: "be brief",
      input: "weather?",
      store: false,
    });
    const final = await stream.finalResponse();
    expect(final.output_text).toBe("Checking.");
    const call = final.output.find((i) => i.type === "function_call") as { name: string; arguments: string };
    expect(call.name).toBe("weather");
    expect(JSON.parse(call.arguments)).toEqual(weather);
  });

  test("responses.stream() with the hosted image_generation tool ends with the image_generation_call item", async () => {
    const stream = client.responses.stream({
      model: "gpt-5.6-terra",
      instructions: "draw",
      input: "a fox",
      tools: [{ type: "image_generation", size: "1024x1024" }],
      tool_choice: { type: "image_generation" },
      store: false,
    });
    const final = await stream.finalResponse();
    const call = final.output.find((i) => i.type === "image_generation_call") as { result: string; status: string };
    expect(call.status).toBe("completed");
    expect(Buffer.from(call.result, "base64").subarray(1, 4).toString("latin1")).toBe("PNG");
  });

  test("what the backend refuses arrives as the SDK's API errors", async () => {
    const plain = client.responses.create({ model: "gpt-5.5", instructions: "x", input: "hi", store: false });
    expect(await rejection(plain)).toMatchObject({ status: 400 });
    const stale = new OpenAI({ apiKey: "expired", baseURL: fake.baseUrl, maxRetries: 0 });
    const refused = stale.responses.create({ model: "gpt-5.5", instructions: "x", input: "hi", stream: true });
    expect(await rejection(refused)).toMatchObject({ status: 401, code: "token_expired" });
  });
});

describe("the Anthropic fake with a subscription token through the anthropic SDK", () => {
  const token = "sk-ant-oat01-sdk";
  const identity = "You are Claude Code, Anthropic's official CLI for Claude.";
  let fake: FakeLlm;
  let client: Anthropic;
  beforeAll(async () => {
    fake = await startFakeAnthropic({ oauthToken: token });
    client = new Anthropic({
      authToken: token,
      apiKey: null,
      baseURL: fake.baseUrl,
      maxRetries: 0,
      defaultHeaders: { "anthropic-beta": "claude-code-20250219,oauth-2025-04-20" },
    });
  });
  afterAll(() => fake.close());

  const shaped = {
    model: "claude-sonnet-4-6",
    max_tokens: 100,
    system: [{ type: "text" as const, text: identity }],
    tools: [{ name: "mcp_weather", input_schema: { type: "object" as const, properties: {} } }],
    messages: [{ role: "user" as const, content: "weather?" }],
  };

  test("non-streamed and streamed tool_use keep the mcp_ name and rebuild the input", async () => {
    fake.enqueue({ kind: "tool_calls", calls: [{ name: "mcp_weather", arguments: weather }] });
    const message = await client.messages.create(shaped);
    expect(message.content[0]).toMatchObject({ type: "tool_use", name: "mcp_weather", input: weather });
    fake.enqueue({ kind: "tool_calls", text: "Checking.", calls: [{ name: "mcp_weather", arguments: weather }] });
    const final = await client.messages.stream(shaped).finalMessage();
    expect(final.content.find((b) => b.type === "tool_use")).toMatchObject({ name: "mcp_weather", input: weather });
  });

  test("a request not shaped like Claude Code's is refused as the service refuses it", async () => {
    const bare = client.messages.create({ ...shaped, system: "be brief" });
    expect(await rejection(bare)).toMatchObject({ status: 400 });
  });
});
