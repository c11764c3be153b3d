/**
 * Proves the fakes speak the real wires: the official SDKs, whose stream accumulators validate event
 * order and routing fields strictly, parse everything the fakes send. Chat Completions flavors are in
 * sdk-conformance-chat.test.ts.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import Anthropic from "@anthropic-ai/sdk";
import OpenAI from "openai";
import { type FakeLlm, startFakeAnthropic, startFakeOpenAIResponses } from "./llm.ts";

const KEY = "sk-test-conformance-1234";
const weather = { city: "Paris", days: 3, units: { temp: "C" } };

describe("OpenAI Responses through the openai SDK", () => {
  let fake: FakeLlm;
  let client: OpenAI;
  beforeAll(async () => {
    fake = await startFakeOpenAIResponses({ apiKey: KEY });
    client = new OpenAI({ apiKey: KEY, baseURL: fake.baseUrl, maxRetries: 0 });
  });
  afterAll(() => fake.close());

  test("non-streamed text", async () => {
    fake.enqueue({ kind: "text", text: "Hello there" });
    const response = await client.responses.create({ model: "gpt-5-mini", input: "hi" });
    expect(response.id).toStartWith("resp_");
    expect(response.status).toBe("completed");
    expect(response.output_text).toBe("Hello there");
    expect(response.usage?.input_tokens).toBeGreaterThan(0);
  });

  test("non-streamed function calls keep call_id, name and a JSON arguments string", async () => {
    fake.enqueue({
      kind: "tool_calls",
      text: "Checking.",
      calls: [{ id: "call_abc", name: "weather", arguments: weather }],
    });
    const response = await client.responses.create({ model: "gpt-5-mini", input: "weather?" });
    expect(response.output_text).toBe("Checking.");
    const call = response.output.find((item) => item.type === "function_call");
    expect(call).toMatchObject({ type: "function_call", call_id: "call_abc", name: "weather", status: "completed" });
    expect(JSON.parse((call as { arguments: string }).arguments)).toEqual(weather);
  });

  test("streamed text arrives as the scripted deltas, in order, ending in response.completed", async () => {
    fake.enqueue({ kind: "text", text: "Hello, world", chunks: ["Hel", "lo, ", "world"] });
    const stream = await client.responses.create({ model: "gpt-5-mini", input: "hi", stream: true });
    const types: string[] = [];
    const deltas: string[] = [];
    const sequence: number[] = [];
    let usage: unknown;
    for await (const event of stream) {
      types.push(event.type);
      sequence.push(event.sequence_number);
      if (event.type === "response.output_text.delta") deltas.push(event.delta);
      if (event.type === "response.completed") usage = event.response.usage;
    }
    expect(deltas).toEqual(["Hel", "lo, ", "world"]);
    expect(types[0]).toBe("response.created");
    expect(types.at(-1)).toBe("response.completed");
    expect(types).toContain("response.content_part.done");
    expect(sequence).toEqual(sequence.map((_, i) => i));
    expect(usage).toMatchObject({ input_tokens: expect.any(Number), output_tokens: expect.any(Number) });
  });

  test("responses.stream() accumulates text and function calls into finalResponse()", async () => {
    fake.enqueue({
      kind: "tool_calls",
      text: "Let me look.",
      calls: [
        { name: "weather", arguments: weather },
        { id: "call_two", name: "time", arguments: { tz: "Europe/Paris" } },
      ],
    });
    const deltas: string[] = [];
    const stream = client.responses.stream({ model: "gpt-5-mini", input: "weather and time?" });
    stream.on("response.function_call_arguments.delta", (e) => deltas.push(e.delta));
    const final = await stream.finalResponse();
    expect(final.output_text).toBe("Let me look.");
    const calls = final.output.filter((item) => item.type === "function_call");
    expect(calls.map((c) => [c.name, JSON.parse(c.arguments)])).toEqual([
      ["weather", weather],
      ["time", { tz: "Europe/Paris" }],
    ]);
    expect(calls[0]?.call_id).toStartWith("call_");
    expect(calls[1]?.call_id).toBe("call_two");
    expect(deltas.length).toBeGreaterThan(2);
  });

  test("a reasoning summary streams as summary parts the accumulator folds into the reasoning item", async () => {
    const summary = ["**Checking the forecast**\n\nThe user wants Paris.", "**Writing it up**\n\nShort answer."];
    fake.enqueue({ kind: "text", text: "Rain in Paris.", reasoning: summary });
    const deltas: string[] = [];
    const done: string[] = [];
    const stream = client.responses.stream({
      model: "gpt-5-mini",
      input: "weather?",
      reasoning: { effort: "low", summary: "auto" },
      include: ["reasoning.encrypted_content"],
      store: false,
    });
    stream.on("response.reasoning_summary_text.delta", (e) => deltas.push(e.delta));
    stream.on("response.reasoning_summary_part.done", (e) => done.push(e.part.text));
    const final = await stream.finalResponse();
    expect(done).toEqual(summary);
    expect(deltas.join("")).toBe(summary.join(""));
    expect(final.output.map((item) => item.type)).toEqual(["reasoning", "message"]);
    const reasoning = final.output[0] as OpenAI.Responses.ResponseReasoningItem;
    expect(reasoning.summary).toEqual(summary.map((text) => ({ type: "summary_text", text })));
    expect(reasoning.encrypted_content).toStartWith("gAAAAA");
    expect(final.output_text).toBe("Rain in Paris.");
  });

  test("without reasoning.summary the reasoning item comes with no summary parts", async () => {
    fake.enqueue({ kind: "text", text: "Rain.", reasoning: ["**Hidden**"] });
    const types: string[] = [];
    const stream = client.responses.stream({ model: "gpt-5-mini", input: "weather?", reasoning: { effort: "low" } });
    stream.on("event", (e) => types.push(e.type));
    const final = await stream.finalResponse();
    expect(types.filter((t) => t.startsWith("response.reasoning_summary"))).toEqual([]);
    expect(final.output[0]).toMatchObject({ type: "reasoning", summary: [] });
  });

  test("empty completes normally with no output", async () => {
    fake.enqueue({ kind: "empty" });
    const final = await client.responses.stream({ model: "gpt-5-mini", input: "hi" }).finalResponse();
    expect(final.status).toBe("completed");
    expect(final.output).toEqual([]);
    expect(final.output_text).toBe("");
  });
});

describe("Anthropic Messages through the @anthropic-ai/sdk", () => {
  let fake: FakeLlm;
  let client: Anthropic;
  beforeAll(async () => {
    fake = await startFakeAnthropic({ apiKey: KEY });
    client = new Anthropic({ apiKey: KEY, baseURL: fake.baseUrl, maxRetries: 0 });
  });
  afterAll(() => fake.close());
  const params = { model: "claude-sonnet-5-5", max_tokens: 1024, messages: [{ role: "user" as const, content: "hi" }] };

  test("non-streamed text", async () => {
    fake.enqueue({ kind: "text", text: "Bonjour" });
    const message = await client.messages.create(params);
    expect(message.id).toStartWith("msg_");
    expect(message.stop_reason).toBe("end_turn");
    expect(message.content).toEqual([{ type: "text", text: "Bonjour", citations: null }]);
    expect(message.usage.input_tokens).toBeGreaterThan(0);
  });

  test("non-streamed tool_use", async () => {
    fake.enqueue({ kind: "tool_calls", calls: [{ id: "toolu_01abc", name: "weather", arguments: weather }] });
    const message = await client.messages.create(params);
    expect(message.stop_reason).toBe("tool_use");
    expect(message.content).toEqual([
      { type: "tool_use", id: "toolu_01abc", name: "weather", input: weather, caller: { type: "direct" } },
    ]);
  });

  test("streamed events: text deltas, split partial_json, message_delta stop reason and usage", async () => {
    fake.enqueue({ kind: "tool_calls", text: "On it.", calls: [{ name: "weather", arguments: weather }] });
    const stream = await client.messages.create({ ...params, stream: true });
    const types: string[] = [];
    let text = "";
    const fragments: string[] = [];
    for await (const event of stream) {
      types.push(event.type);
      if (event.type === "content_block_delta" && event.delta.type === "text_delta") text += event.delta.text;
      if (event.type === "content_block_delta" && event.delta.type === "input_json_delta") {
        fragments.push(event.delta.partial_json);
      }
      if (event.type === "message_delta") {
        expect(event.delta.stop_reason).toBe("tool_use");
        expect(event.usage.output_tokens).toBeGreaterThan(0);
      }
    }
    expect(text).toBe("On it.");
    expect(fragments.length).toBeGreaterThan(2);
    expect(JSON.parse(fragments.join(""))).toEqual(weather);
    expect(types[0]).toBe("message_start");
    expect(types.at(-1)).toBe("message_stop");
  });

  test("messages.stream().finalMessage() rebuilds the tool input object from the fragments", async () => {
    fake.enqueue({ kind: "tool_calls", calls: [{ name: "weather", arguments: weather }] });
    const final = await client.messages.stream(params).finalMessage();
    const block = final.content[0];
    expect(block?.type).toBe("tool_use");
    if (block?.type !== "tool_use") throw new Error("expected tool_use");
    expect(block.id).toStartWith("toolu_");
    expect(block.input).toEqual(weather);
    expect(final.stop_reason).toBe("tool_use");
  });

  test("messages.stream() text events follow the scripted chunks", async () => {
    fake.enqueue({ kind: "text", text: "one two three", chunks: ["one ", "two ", "three"] });
    const seen: string[] = [];
    const stream = client.messages.stream(params).on("text", (delta) => seen.push(delta));
    expect(await stream.finalText()).toBe("one two three");
    expect(seen).toEqual(["one ", "two ", "three"]);
  });

  test("empty completes normally with no content", async () => {
    fake.enqueue({ kind: "empty" });
    const final = await client.messages.stream(params).finalMessage();
    expect(final.content).toEqual([]);
    expect(final.stop_reason).toBe("end_turn");
  });
});
