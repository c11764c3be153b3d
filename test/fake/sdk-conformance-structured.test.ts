/**
 * Structured output (`ask --schema`) against the fakes through the official SDKs: their `parse` helpers read the
 * fakes' answers into objects, streamed too, and the fakes refuse, as the APIs do, what strict mode or Anthropic
 * would refuse.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import Anthropic from "@anthropic-ai/sdk";
import { jsonSchemaOutputFormat } from "@anthropic-ai/sdk/helpers/json-schema";
import OpenAI from "openai";
import { type FakeLlm, startFakeAnthropic, startFakeChatCompletions, startFakeOpenAIResponses } from "./llm.ts";

const KEY = "sk-test-structured-conformance-1234";
const SCHEMA = {
  type: "object",
  properties: { name: { type: "string" }, age: { type: "integer" } },
  required: ["name", "age"],
  additionalProperties: false,
} as const;
const ADA = { name: "Ada", age: 36 };
const FORMAT = { type: "json_schema", name: "fermix_answer", schema: SCHEMA, strict: true } as const;

describe("Responses text.format through the openai SDK", () => {
  let fake: FakeLlm;
  let client: OpenAI;
  beforeAll(async () => {
    fake = await startFakeOpenAIResponses({ apiKey: KEY });
    client = new OpenAI({ apiKey: KEY, baseURL: fake.baseUrl, maxRetries: 0 });
  });
  afterAll(() => fake.close());

  test("responses.parse() reads the answer into output_parsed; the format is echoed", async () => {
    fake.enqueue({ kind: "text", text: JSON.stringify(ADA) });
    const response = await client.responses.parse({ model: "gpt-5.5", input: "who?", text: { format: FORMAT } });
    expect(response.output_parsed).toEqual(ADA);
    expect(response.text?.format).toMatchObject({ type: "json_schema", name: "fermix_answer" });
  });

  test("streamed, the final response parses too", async () => {
    fake.enqueue({ kind: "text", text: JSON.stringify(ADA), chunks: ['{"name":"Ada",', '"age":36}'] });
    const stream = client.responses.stream({ model: "gpt-5.5", input: "who?", text: { format: FORMAT } });
    expect((await stream.finalResponse()).output_parsed).toEqual(ADA);
  });

  test("strict with an open object, a missing name or a non-object root is a 400 as the API words it", async () => {
    const open = { ...SCHEMA, additionalProperties: true };
    const partial = { ...SCHEMA, required: ["name"] };
    const refusals = [
      [{ ...FORMAT, schema: open }, "'additionalProperties' is required to be supplied and to be false"],
      [{ ...FORMAT, schema: partial }, "'required' is required to be supplied and to be an array including every key"],
      [{ type: "json_schema", schema: SCHEMA }, "Missing required parameter: 'text.format.name'."],
      [{ ...FORMAT, schema: { type: "array" } }, `schema must be a JSON Schema of 'type: "object"'`],
    ] as const;
    for (const [format, message] of refusals) {
      const err = await client.responses
        .create({ model: "gpt-5.5", input: "who?", text: { format: format as any } })
        .catch((e) => e);
      expect(err).toBeInstanceOf(OpenAI.BadRequestError);
      expect(err.message).toContain(message);
    }
    // Not strict, the same open schema is accepted.
    fake.enqueue({ kind: "text", text: JSON.stringify(ADA) });
    const lax = await client.responses.create({
      model: "gpt-5.5",
      input: "who?",
      text: { format: { ...FORMAT, schema: open, strict: false } },
    });
    expect(lax.status).toBe("completed");
  });
});

describe.each(["generic", "openrouter", "mistral", "ollama"] as const)(
  "Chat Completions response_format, %s flavor",
  (flavor) => {
    let fake: FakeLlm;
    let client: OpenAI;
    beforeAll(async () => {
      fake = await startFakeChatCompletions({ apiKey: KEY, flavor });
      client = new OpenAI({ apiKey: KEY, baseURL: fake.baseUrl, maxRetries: 0 });
    });
    afterAll(() => fake.close());

    const responseFormat = {
      type: "json_schema",
      json_schema: { name: "fermix_answer", schema: SCHEMA, strict: true },
    } as const;

    test("chat.completions.parse() reads the answer into message.parsed", async () => {
      fake.enqueue({ kind: "text", text: JSON.stringify(ADA) });
      const completion = await client.chat.completions.parse({
        model: "m-1",
        messages: [{ role: "user", content: "who?" }],
        response_format: responseFormat,
      });
      expect(completion.choices[0]?.message.parsed).toEqual(ADA);
    });

    test("streamed, the final completion parses too", async () => {
      fake.enqueue({ kind: "text", text: JSON.stringify(ADA) });
      const stream = client.chat.completions.stream({
        model: "m-1",
        messages: [{ role: "user", content: "who?" }],
        response_format: responseFormat,
      });
      expect((await stream.finalChatCompletion()).choices[0]?.message.parsed).toEqual(ADA);
    });

    test("a format without a name is refused", async () => {
      const err = await client.chat.completions
        .create({
          model: "m-1",
          messages: [{ role: "user", content: "who?" }],
          response_format: { type: "json_schema", json_schema: { schema: SCHEMA } as any },
        })
        .catch((e) => e);
      expect(err).toBeInstanceOf(OpenAI.BadRequestError);
    });
  },
);

describe("Anthropic output_config.format through the anthropic SDK", () => {
  let fake: FakeLlm;
  let client: Anthropic;
  beforeAll(async () => {
    fake = await startFakeAnthropic({ apiKey: KEY });
    client = new Anthropic({ apiKey: KEY, baseURL: fake.baseUrl, maxRetries: 0 });
  });
  afterAll(() => fake.close());

  test("messages.parse() reads the answer into parsed_output", async () => {
    fake.enqueue({ kind: "text", text: JSON.stringify(ADA) });
    const message = await client.messages.parse({
      model: "claude-sonnet-4-6",
      max_tokens: 1024,
      messages: [{ role: "user", content: "who?" }],
      output_config: { format: jsonSchemaOutputFormat(SCHEMA) },
    });
    expect(message.parsed_output).toEqual(ADA);
  });

  test("a forced answer tool streams its input, which finalMessage() rebuilds", async () => {
    fake.enqueue({ kind: "tool_calls", calls: [{ name: "structured_answer", arguments: ADA }] });
    const stream = client.messages.stream({
      model: "claude-3-5-haiku-latest",
      max_tokens: 1024,
      messages: [{ role: "user", content: "who?" }],
      tools: [{ name: "structured_answer", input_schema: { ...SCHEMA, required: [...SCHEMA.required] } }],
      tool_choice: { type: "tool", name: "structured_answer" },
    });
    const final = await stream.finalMessage();
    expect(final.content.find((b) => b.type === "tool_use")).toMatchObject({ name: "structured_answer", input: ADA });
  });

  test("an open object, or a model without structured output, is a 400", async () => {
    const ask = (model: string, schema: Record<string, unknown>) =>
      client.messages
        .create({
          model,
          max_tokens: 1024,
          messages: [{ role: "user", content: "who?" }],
          output_config: { format: { type: "json_schema", schema } },
        })
        .catch((e) => e);
    const open = await ask("claude-sonnet-4-6", { ...SCHEMA, additionalProperties: undefined });
    expect(open).toBeInstanceOf(Anthropic.BadRequestError);
    expect(open.message).toContain("'additionalProperties' must be explicitly set to false");
    expect(await ask("claude-3-5-haiku-latest", SCHEMA)).toBeInstanceOf(Anthropic.BadRequestError);
  });
});
