/**
 * Every Chat Completions flavor must parse with the openai SDK, including its strict
 * `chat.completions.stream()` accumulator, whether tool-call arguments arrive split (OpenAI,
 * OpenRouter) or whole (Mistral, Ollama).
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import OpenAI from "openai";
import { type FakeLlm, startFakeChatCompletions } from "./llm.ts";

const KEY = "sk-test-chat-5678";
const args = { path: "notes/todo.md", lines: [1, 2, 3] };
const flavors = ["generic", "openrouter", "mistral", "ollama"] as const;
const user = [{ role: "user" as const, content: "hi" }];

describe.each(flavors)("Chat Completions, %s flavor", (flavor) => {
  let fake: FakeLlm;
  let client: OpenAI;
  beforeAll(async () => {
    fake = await startFakeChatCompletions({ apiKey: KEY, flavor });
    client = new OpenAI({ apiKey: KEY, baseURL: fake.baseUrl, maxRetries: 0 });
  });
  afterAll(() => fake.close());

  test("non-streamed text", async () => {
    fake.enqueue({ kind: "text", text: "Hello" });
    const completion = await client.chat.completions.create({ model: "m-1", messages: user });
    expect(completion.object).toBe("chat.completion");
    expect(completion.choices[0]?.message.content).toBe("Hello");
    expect(completion.choices[0]?.finish_reason).toBe("stop");
    expect(completion.usage?.prompt_tokens).toBeGreaterThan(0);
  });

  test("non-streamed tool calls", async () => {
    fake.enqueue({ kind: "tool_calls", calls: [{ id: "call_x1", name: "read", arguments: args }] });
    const completion = await client.chat.completions.create({ model: "m-1", messages: user });
    const choice = completion.choices[0]!;
    expect(choice.finish_reason).toBe("tool_calls");
    const call = choice.message.tool_calls?.[0];
    expect(call).toMatchObject({ id: "call_x1", type: "function", function: { name: "read" } });
    expect(call?.type === "function" && JSON.parse(call.function.arguments)).toEqual(args);
  });

  test("streamed text and tool calls reassemble from chunks, ending in [DONE]", async () => {
    fake.enqueue({
      kind: "tool_calls",
      text: "Reading.",
      calls: [
        { name: "read", arguments: args },
        { name: "list", arguments: {} },
      ],
    });
    const stream = await client.chat.completions.create({
      model: "m-1",
      messages: user,
      stream: true,
      stream_options: { include_usage: true },
    });
    let text = "";
    const calls: { id?: string; name?: string; args: string }[] = [];
    let finish: string | null = null;
    let usage: unknown;
    for await (const chunk of stream) {
      if (chunk.usage) usage = chunk.usage;
      const choice = chunk.choices[0];
      if (!choice) continue;
      text += choice.delta.content ?? "";
      for (const delta of choice.delta.tool_calls ?? []) {
        calls[delta.index] ??= { args: "" };
        const call = calls[delta.index]!;
        call.id ??= delta.id;
        call.name ??= delta.function?.name;
        call.args += delta.function?.arguments ?? "";
      }
      finish = choice.finish_reason ?? finish;
    }
    expect(text).toBe("Reading.");
    expect(calls.map((c) => [c.name, JSON.parse(c.args)])).toEqual([
      ["read", args],
      ["list", {}],
    ]);
    expect(calls.every((c) => typeof c.id === "string" && c.id.length > 0)).toBe(true);
    expect(finish).toBe("tool_calls");
    expect(usage).toMatchObject({ prompt_tokens: expect.any(Number), completion_tokens: expect.any(Number) });
  });

  test("chat.completions.stream() finalChatCompletion() for text", async () => {
    fake.enqueue({ kind: "text", text: "a, b and c", chunks: ["a, ", "b ", "and c"] });
    const seen: string[] = [];
    const stream = client.chat.completions.stream({ model: "m-1", messages: user });
    // Mistral closes with an empty content delta beside finish_reason; only real text counts here.
    stream.on("content", (delta) => delta && seen.push(delta));
    const final = await stream.finalChatCompletion();
    expect(final.choices[0]?.message.content).toBe("a, b and c");
    expect(seen).toEqual(["a, ", "b ", "and c"]);
  });

  test("chat.completions.stream() finalChatCompletion() for tool calls", async () => {
    fake.enqueue({ kind: "tool_calls", calls: [{ id: "abcDEF123", name: "read", arguments: args }] });
    const final = await client.chat.completions.stream({ model: "m-1", messages: user }).finalChatCompletion();
    const call = final.choices[0]?.message.tool_calls?.[0];
    expect(final.choices[0]?.finish_reason).toBe("tool_calls");
    expect(call?.id).toBe("abcDEF123");
    expect(call?.type === "function" && JSON.parse(call.function.arguments)).toEqual(args);
  });

  test("empty stream completes with no content and no tool calls", async () => {
    fake.enqueue({ kind: "empty" });
    const final = await client.chat.completions.stream({ model: "m-1", messages: user }).finalChatCompletion();
    expect(final.choices[0]?.message.content ?? "").toBe("");
    expect(final.choices[0]?.message.tool_calls ?? []).toEqual([]);
    expect(final.choices[0]?.finish_reason).toBe("stop");
  });
});
