/**
 * A `cut` reply must look like a dropped connection, not a short answer: the client sees the first
 * deltas, then its stream iteration throws. A stream that ended quietly would let a wire report a
 * truncated answer as complete.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import Anthropic from "@anthropic-ai/sdk";
import OpenAI from "openai";
import { type FakeLlm, startFakeAnthropic, startFakeChatCompletions, startFakeOpenAIResponses } from "./llm.ts";

const KEY = "sk-test-cut-0001";
const CUT = { kind: "cut", text: "partial answer that never fini" } as const;

/** Drains `events`, collecting text with `pick`; returns what arrived and what was thrown. */
async function drain<E>(events: AsyncIterable<E>, pick: (event: E) => string | undefined) {
  let text = "";
  try {
    for await (const event of events) text += pick(event) ?? "";
  } catch (error) {
    return { text, error };
  }
  return { text, error: undefined };
}

describe("cut on the Responses wire", () => {
  let fake: FakeLlm;
  let client: OpenAI;
  beforeAll(async () => {
    fake = await startFakeOpenAIResponses({ apiKey: KEY });
    client = new OpenAI({ apiKey: KEY, baseURL: fake.baseUrl, maxRetries: 0 });
  });
  afterAll(() => fake.close());

  test("iteration yields the deltas, then throws", async () => {
    fake.enqueue(CUT);
    const stream = await client.responses.create({ model: "gpt-5-mini", input: "hi", stream: true });
    const { text, error } = await drain(stream, (e) => (e.type === "response.output_text.delta" ? e.delta : undefined));
    expect(text).toBe(CUT.text);
    expect(error).toBeDefined();
  });

  test("responses.stream().finalResponse() rejects", async () => {
    fake.enqueue(CUT);
    await expect(client.responses.stream({ model: "gpt-5-mini", input: "hi" }).finalResponse()).rejects.toThrow();
  });

  test("a non-streamed request with a cut body rejects", async () => {
    fake.enqueue(CUT);
    // Awaited by hand: the SDK's APIPromise only parses the body inside its own then().
    const outcome = await client.responses.create({ model: "gpt-5-mini", input: "hi" }).then(
      () => "resolved",
      (error: unknown) => error,
    );
    expect(outcome).toBeInstanceOf(Error);
  });
});

describe.each(["generic", "mistral"] as const)("cut on the Chat Completions wire (%s)", (flavor) => {
  let fake: FakeLlm;
  let client: OpenAI;
  beforeAll(async () => {
    fake = await startFakeChatCompletions({ apiKey: KEY, flavor });
    client = new OpenAI({ apiKey: KEY, baseURL: fake.baseUrl, maxRetries: 0 });
  });
  afterAll(() => fake.close());
  const messages = [{ role: "user" as const, content: "hi" }];

  test("iteration yields the deltas, then throws before [DONE]", async () => {
    fake.enqueue(CUT);
    const stream = await client.chat.completions.create({ model: "m-1", messages, stream: true });
    const { text, error } = await drain(stream, (chunk) => chunk.choices[0]?.delta.content ?? undefined);
    expect(text).toBe(CUT.text);
    expect(error).toBeDefined();
  });

  test("chat.completions.stream().finalChatCompletion() rejects", async () => {
    fake.enqueue(CUT);
    await expect(client.chat.completions.stream({ model: "m-1", messages }).finalChatCompletion()).rejects.toThrow();
  });
});

describe("cut on the Anthropic wire", () => {
  let fake: FakeLlm;
  let client: Anthropic;
  beforeAll(async () => {
    fake = await startFakeAnthropic({ apiKey: KEY });
    client = new Anthropic({ apiKey: KEY, baseURL: fake.baseUrl, maxRetries: 0 });
  });
  afterAll(() => fake.close());
  const params = { model: "claude-sonnet-5-5", max_tokens: 64, messages: [{ role: "user" as const, content: "hi" }] };

  test("iteration yields the deltas, then throws before message_stop", async () => {
    fake.enqueue(CUT);
    const stream = await client.messages.create({ ...params, stream: true });
    const { text, error } = await drain(stream, (e) =>
      e.type === "content_block_delta" && e.delta.type === "text_delta" ? e.delta.text : undefined,
    );
    expect(text).toBe(CUT.text);
    expect(error).toBeDefined();
  });

  test("messages.stream().finalMessage() rejects", async () => {
    fake.enqueue(CUT);
    await expect(client.messages.stream(params).finalMessage()).rejects.toThrow();
  });
});
