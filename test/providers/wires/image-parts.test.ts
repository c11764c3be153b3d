/**
 * Image parts on every wire that takes them: each maps the neutral `{type: "image", mime, data}` to its vendor's
 * shape, the fakes accept it and decode it as the real services do, and what they refuse surfaces as a request
 * error with the vendor's own words.
 */
import { describe, expect, test } from "bun:test";
import { imagePlaceholder, userMessage, withMediaPlaceholders } from "../../../src/media/image-parts.ts";
import type { ImagePart, Message, Wire } from "../../../src/providers/types.ts";
import { anthropicWire } from "../../../src/providers/wires/anthropic.ts";
import { openaiChatWire } from "../../../src/providers/wires/openai-chat.ts";
import { openaiResponsesWire } from "../../../src/providers/wires/openai-responses.ts";
import {
  type FakeLlm,
  startFakeAnthropic,
  startFakeChatCompletions,
  startFakeOpenAIResponses,
} from "../../fake/llm.ts";
import { drain, fakesClosedAfterEach, request, targetFor } from "./harness.ts";

/** A real 1×1 PNG: the fakes check the bytes' signature against the declared type. */
const PNG_BASE64 = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==";
const png: ImagePart = { type: "image", mime: "image/png", data: PNG_BASE64 };
const KEY = "sk-image-parts-0123456789abcdef";
const started = fakesClosedAfterEach();

const withPicture = (picture: ImagePart = png): Message[] => [
  { role: "user", content: [picture, { type: "text", text: "What is in this picture?" }] },
];

type Case = {
  name: string;
  wire: Wire;
  provider: string;
  model: string;
  start: () => Promise<FakeLlm>;
  /** Where the user message's content sits in the recorded body. */
  content: (body: any) => unknown[];
  expected: unknown;
};

const cases: Case[] = [
  {
    name: "openai-responses",
    wire: openaiResponsesWire,
    provider: "openai",
    model: "gpt-5.5",
    start: () => startFakeOpenAIResponses({ apiKey: KEY }),
    content: (body) => body.input[0].content,
    expected: { type: "input_image", image_url: `data:image/png;base64,${PNG_BASE64}`, detail: "auto" },
  },
  {
    name: "openai-chat",
    wire: openaiChatWire,
    provider: "openrouter",
    model: "anthropic/claude-sonnet-4.6",
    start: () => startFakeChatCompletions({ apiKey: KEY, flavor: "openrouter" }),
    content: (body) => body.messages[1].content,
    expected: { type: "image_url", image_url: { url: `data:image/png;base64,${PNG_BASE64}` } },
  },
  {
    name: "anthropic",
    wire: anthropicWire,
    provider: "anthropic",
    model: "claude-sonnet-4-6",
    start: () => startFakeAnthropic({ apiKey: KEY }),
    content: (body) => body.messages[0].content,
    expected: { type: "image", source: { type: "base64", media_type: "image/png", data: PNG_BASE64 } },
  },
];

describe.each(cases)("$name wire", (c) => {
  async function setup() {
    const fake = await started(c.start());
    return { fake, target: targetFor(c.provider, fake.baseUrl, KEY) };
  }

  test("sends the picture in the vendor's shape, ahead of the question, and the fake accepts it", async () => {
    const { fake, target } = await setup();
    fake.enqueue({ kind: "text", text: "A single pixel." });
    const out = await drain(c.wire, { target, request: request(c.model, { messages: withPicture() }) });
    expect(out.error).toBeUndefined();
    expect(out.text).toBe("A single pixel.");
    const content = c.content(fake.requests[0]!.body);
    expect(content).toHaveLength(2);
    expect(content[0]).toMatchObject(c.expected as object);
    expect(JSON.stringify(content[1])).toContain("What is in this picture?");
  });

  test("a picture that is not what its type says is refused with the vendor's words", async () => {
    const { fake, target } = await setup();
    const notAPicture = Buffer.from("definitely not a png").toString("base64");
    const bad: ImagePart = { type: "image", mime: "image/png", data: notAPicture.padEnd(28, "=") };
    const out = await drain(c.wire, { target, request: request(c.model, { messages: withPicture(bad) }) });
    expect(out.error).toMatchObject({ class: "invalid_request", status: 400 });
    expect(out.error!.message).toMatch(/unsupported image|does not match the provided media type/);
    expect(fake.requests).toHaveLength(1);
  });
});

describe("text-only requests keep their shape", () => {
  test("Chat Completions still sends a plain string when there is no picture", async () => {
    const fake = await started(startFakeChatCompletions({ apiKey: KEY, flavor: "mistral" }));
    await drain(openaiChatWire, {
      target: targetFor("mistral", fake.baseUrl, KEY),
      request: request("mistral-large-latest"),
    });
    expect(fake.requests[0]!.body.messages[1]).toEqual({ role: "user", content: "What is the weather in Lyon?" });
  });

  test("an unsupported type is refused by Anthropic with its enum message", async () => {
    const fake = await started(startFakeAnthropic({ apiKey: KEY }));
    const heic: ImagePart = { type: "image", mime: "image/heic", data: PNG_BASE64 };
    const out = await drain(anthropicWire, {
      target: targetFor("anthropic", fake.baseUrl, KEY),
      request: request("claude-sonnet-4-6", { messages: withPicture(heic) }),
    });
    expect(out.error?.message).toContain(
      "messages.0.content.0.image.source.base64.media_type: Input should be 'image/jpeg', 'image/png', 'image/gif' or 'image/webp'",
    );
  });
});

describe("history keeps placeholders, not bytes", () => {
  test("a user message's pictures become short text; other messages are untouched", () => {
    const message = userMessage("look", [{ mime: "image/jpeg", data: new Uint8Array(150 * 1024) }]);
    expect(message.content.map((p) => p.type)).toEqual(["image", "text"]);
    expect(withMediaPlaceholders(message)).toEqual({
      role: "user",
      content: [
        { type: "text", text: "[image: image/jpeg, 150 KB]" },
        { type: "text", text: "look" },
      ],
    });
    const assistant: Message = { role: "assistant", content: [{ type: "text", text: "hi" }] };
    expect(withMediaPlaceholders(assistant)).toBe(assistant);
    expect(imagePlaceholder(png)).toBe("[image: image/png, 1 KB]");
  });

  test("a captionless picture sends no empty text block", () => {
    expect(userMessage("", [{ mime: "image/png", data: new Uint8Array(4) }]).content.map((p) => p.type)).toEqual([
      "image",
    ]);
    expect(userMessage("hi").content).toEqual([{ type: "text", text: "hi" }]);
  });
});
