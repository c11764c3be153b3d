/**
 * The official SDKs' image requests are what the fakes accept: a data-URL input_image (Responses), an image_url
 * part (Chat Completions, every flavor) and a base64 image block (Anthropic), each typed by the SDK itself. And
 * what the real services refuse, the fakes refuse in words the SDKs surface as their APIError.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import Anthropic from "@anthropic-ai/sdk";
import OpenAI from "openai";
import { type FakeLlm, startFakeAnthropic, startFakeChatCompletions, startFakeOpenAIResponses } from "./llm.ts";

const KEY = "sk-test-images-2468";
const PNG = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==";
const NOT_AN_IMAGE = Buffer.from("plain text, not pixels").toString("base64");

describe("OpenAI Responses input_image through the openai SDK", () => {
  let fake: FakeLlm;
  let client: OpenAI;
  beforeAll(async () => {
    fake = await startFakeOpenAIResponses({ apiKey: KEY });
    client = new OpenAI({ apiKey: KEY, baseURL: fake.baseUrl, maxRetries: 0 });
  });
  afterAll(() => fake.close());

  const input = (url: string): OpenAI.Responses.ResponseInput => [
    {
      role: "user",
      content: [
        { type: "input_image", image_url: url, detail: "auto" },
        { type: "input_text", text: "What is this?" },
      ],
    },
  ];

  test("a data-URL picture is accepted and recorded", async () => {
    fake.enqueue({ kind: "text", text: "A pixel." });
    const response = await client.responses.create({ model: "gpt-5.5", input: input(`data:image/png;base64,${PNG}`) });
    expect(response.output_text).toBe("A pixel.");
    expect(fake.requests.at(-1)!.body.input[0].content[0]).toEqual({
      type: "input_image",
      image_url: `data:image/png;base64,${PNG}`,
      detail: "auto",
    });
  });

  test("bytes that are no picture: 400 invalid_image_format", async () => {
    const error = await client.responses
      .create({ model: "gpt-5.5", input: input(`data:image/png;base64,${NOT_AN_IMAGE}`) })
      .catch((e) => e);
    expect(error).toBeInstanceOf(OpenAI.BadRequestError);
    expect(error.code).toBe("invalid_image_format");
    expect(error.message).toContain("You uploaded an unsupported image");
  });

  test("a bare base64 value: 400 naming the parameter and the missing data: prefix", async () => {
    const error = await client.responses.create({ model: "gpt-5.5", input: input(PNG) }).catch((e) => e);
    expect(error).toBeInstanceOf(OpenAI.BadRequestError);
    expect(error.param).toBe("input[0].content[0].image_url");
    expect(error.message).toContain("without the 'data:' prefix");
  });
});

describe.each(["generic", "openrouter", "mistral", "ollama"] as const)("Chat Completions image_url, %s", (flavor) => {
  let fake: FakeLlm;
  let client: OpenAI;
  beforeAll(async () => {
    fake = await startFakeChatCompletions({ apiKey: KEY, flavor });
    client = new OpenAI({ apiKey: KEY, baseURL: fake.baseUrl, maxRetries: 0 });
  });
  afterAll(() => fake.close());

  const messages = (url: string): OpenAI.Chat.ChatCompletionMessageParam[] => [
    {
      role: "user",
      content: [
        { type: "text", text: "What is this?" },
        { type: "image_url", image_url: { url } },
      ],
    },
  ];

  test("a data-URL picture is accepted, streamed answer and all", async () => {
    fake.enqueue({ kind: "text", text: "A pixel." });
    const stream = client.chat.completions.stream({ model: "m-1", messages: messages(`data:image/png;base64,${PNG}`) });
    expect((await stream.finalChatCompletion()).choices[0]?.message.content).toBe("A pixel.");
    expect(fake.requests.at(-1)!.body.messages[0].content[1]).toEqual({
      type: "image_url",
      image_url: { url: `data:image/png;base64,${PNG}` },
    });
  });

  test("a picture that is no data URL is refused", async () => {
    const error = await client.chat.completions
      .create({ model: "m-1", messages: messages("not-a-url") })
      .catch((e) => e);
    expect(error).toBeInstanceOf(OpenAI.BadRequestError);
  });
});

describe("Anthropic image blocks through the @anthropic-ai/sdk", () => {
  let fake: FakeLlm;
  let client: Anthropic;
  beforeAll(async () => {
    fake = await startFakeAnthropic({ apiKey: KEY });
    client = new Anthropic({ apiKey: KEY, baseURL: fake.baseUrl, maxRetries: 0 });
  });
  afterAll(() => fake.close());

  const params = (media_type: "image/png" | "image/jpeg", data: string) => ({
    model: "claude-sonnet-4-6",
    max_tokens: 1024,
    messages: [
      {
        role: "user" as const,
        content: [
          { type: "image" as const, source: { type: "base64" as const, media_type, data } },
          { type: "text" as const, text: "What is this?" },
        ],
      },
    ],
  });

  test("a base64 picture is accepted and recorded", async () => {
    fake.enqueue({ kind: "text", text: "A pixel." });
    const final = await client.messages.stream(params("image/png", PNG)).finalMessage();
    expect(final.content).toMatchObject([{ type: "text", text: "A pixel." }]);
    expect(fake.requests.at(-1)!.body.messages[0].content[0].source).toEqual({
      type: "base64",
      media_type: "image/png",
      data: PNG,
    });
  });

  test("a declared type the bytes contradict: 400 in Anthropic's words", async () => {
    const error = await client.messages.create(params("image/jpeg", PNG)).catch((e) => e);
    expect(error).toBeInstanceOf(Anthropic.BadRequestError);
    expect(error.message).toContain(
      "messages.0.content.0.image.source.base64: The image was specified using the image/jpeg media type, but the image appears to be a image/png image",
    );
  });

  test("over 5 MB of base64: 400 image exceeds 5 MB maximum", async () => {
    // 4 MB of pixels is over 5 MB once base64-encoded: the limit applies to what the API receives.
    const big = Buffer.concat([Buffer.from(PNG, "base64"), Buffer.alloc(4 * 1024 * 1024)]).toString("base64");
    const error = await client.messages.create(params("image/png", big)).catch((e) => e);
    expect(error).toBeInstanceOf(Anthropic.BadRequestError);
    expect(error.message).toContain("image exceeds 5 MB maximum");
  });
});
