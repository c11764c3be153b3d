/**
 * An answer cut at the model's output limit, as each fake renders it, parses with the official SDKs exactly as
 * the real truncation does: Responses `status: "incomplete"` with `incomplete_details.reason: "max_output_tokens"`
 * (the Codex backend's too), Anthropic `stop_reason: "max_tokens"`, Chat Completions `finish_reason: "length"`.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import Anthropic from "@anthropic-ai/sdk";
import OpenAI from "openai";
import { type FakeCodex, startFakeCodex } from "./codex.ts";
import {
  type FakeLlm,
  type FakeReply,
  startFakeAnthropic,
  startFakeChatCompletions,
  startFakeOpenAIResponses,
} from "./llm.ts";

const KEY = "sk-test-truncation-4321";
const cut: Extract<FakeReply, { kind: "text" }> = {
  kind: "text",
  text: "The first half of a long",
  chunks: ["The first ", "half of ", "a long"],
  truncated: true,
};

describe("Responses: incomplete at max_output_tokens, through the openai SDK", () => {
  let fake: FakeLlm;
  let client: OpenAI;
  beforeAll(async () => {
    fake = await startFakeOpenAIResponses({ apiKey: KEY });
    client = new OpenAI({ apiKey: KEY, baseURL: fake.baseUrl, maxRetries: 0 });
  });
  afterAll(() => fake.close());

  test("non-streamed", async () => {
    fake.enqueue(cut);
    const response = await client.responses.create({ model: "gpt-5-mini", input: "hi", max_output_tokens: 16 });
    expect(response.status).toBe("incomplete");
    expect(response.incomplete_details).toEqual({ reason: "max_output_tokens" });
    expect(response.output_text).toBe(cut.text);
    expect(response.output[0]).toMatchObject({ type: "message", status: "incomplete" });
  });

  test("streamed: the deltas, then response.incomplete, accumulated by responses.stream()", async () => {
    fake.enqueue(cut);
    const types: string[] = [];
    const stream = client.responses.stream({ model: "gpt-5-mini", input: "hi", max_output_tokens: 16 });
    stream.on("event", (e) => types.push(e.type));
    const final = await stream.finalResponse();
    expect(types.at(-1)).toBe("response.incomplete");
    expect(types).not.toContain("response.completed");
    expect(final.status).toBe("incomplete");
    expect(final.incomplete_details?.reason).toBe("max_output_tokens");
    expect(final.output_text).toBe(cut.text);
  });
});

describe("Codex backend: the same incomplete shape behind a signed-in token", () => {
  let fake: FakeCodex;
  let client: OpenAI;
  beforeAll(async () => {
    fake = await startFakeCodex({ accessToken: "codex-token", accountId: "acct_1" });
    client = new OpenAI({
      apiKey: "codex-token",
      baseURL: fake.baseUrl,
      maxRetries: 0,
      defaultHeaders: { "chatgpt-account-id": "acct_1" },
    });
  });
  afterAll(() => fake.close());

  test("streamed response.incomplete keeps the text", async () => {
    fake.enqueue(cut);
    const final = await client.responses
      .stream({ model: "gpt-5.5", instructions: "be brief", input: "hi", store: false })
      .finalResponse();
    expect(final.status).toBe("incomplete");
    expect(final.incomplete_details?.reason).toBe("max_output_tokens");
    expect(final.output_text).toBe(cut.text);
  });
});

describe("Anthropic: stop_reason max_tokens, through the @anthropic-ai/sdk", () => {
  let fake: FakeLlm;
  let client: Anthropic;
  beforeAll(async () => {
    fake = await startFakeAnthropic({ apiKey: KEY });
    client = new Anthropic({ apiKey: KEY, baseURL: fake.baseUrl, maxRetries: 0 });
  });
  afterAll(() => fake.close());
  const params = { model: "claude-sonnet-5-5", max_tokens: 16, messages: [{ role: "user" as const, content: "hi" }] };

  test("non-streamed", async () => {
    fake.enqueue(cut);
    const message = await client.messages.create(params);
    expect(message.stop_reason).toBe("max_tokens");
    expect(message.content).toEqual([{ type: "text", text: cut.text, citations: null }]);
  });

  test("streamed: message_delta carries max_tokens and finalMessage() keeps the text", async () => {
    fake.enqueue(cut);
    const stops: Array<string | null> = [];
    const stream = client.messages.stream(params).on("streamEvent", (e) => {
      if (e.type === "message_delta") stops.push(e.delta.stop_reason);
    });
    const final = await stream.finalMessage();
    expect(stops).toEqual(["max_tokens"]);
    expect(final.stop_reason).toBe("max_tokens");
    expect(await stream.finalText()).toBe(cut.text);
  });
});

describe.each(["generic", "openrouter", "mistral", "ollama"] as const)(
  "Chat Completions (%s): finish_reason length, through the openai SDK",
  (flavor) => {
    let fake: FakeLlm;
    let client: OpenAI;
    beforeAll(async () => {
      fake = await startFakeChatCompletions({ apiKey: KEY, flavor });
      client = new OpenAI({ apiKey: KEY, baseURL: fake.baseUrl, maxRetries: 0 });
    });
    afterAll(() => fake.close());
    const request = { model: "m-1", max_tokens: 16, messages: [{ role: "user" as const, content: "hi" }] };

    test("non-streamed", async () => {
      fake.enqueue(cut);
      const completion = await client.chat.completions.create(request);
      expect(completion.choices[0]?.finish_reason).toBe("length");
      expect(completion.choices[0]?.message.content).toBe(cut.text);
    });

    test("streamed: finalChatCompletion() ends in length", async () => {
      fake.enqueue(cut);
      const final = await client.chat.completions
        .stream({ ...request, stream_options: { include_usage: true } })
        .finalChatCompletion();
      expect(final.choices[0]?.finish_reason).toBe("length");
      expect(final.choices[0]?.message.content).toBe(cut.text);
    });
  },
);
