/**
 * Scripted and validation errors come back in each vendor's real envelope, so the official SDKs raise
 * their typed errors with the right status, message and headers.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import Anthropic from "@anthropic-ai/sdk";
import OpenAI from "openai";
import { type FakeLlm, startFakeAnthropic, startFakeChatCompletions, startFakeOpenAIResponses } from "./llm.ts";

const KEY = "sk-test-errors-9999";

/** The rejection of `promise`, failing the test if it resolves. */
async function rejectionOf(promise: Promise<unknown>): Promise<any> {
  try {
    await promise;
  } catch (error) {
    return error;
  }
  throw new Error("expected a rejection");
}

describe("OpenAI-shaped errors (Responses)", () => {
  let fake: FakeLlm;
  let client: OpenAI;
  beforeAll(async () => {
    fake = await startFakeOpenAIResponses({ apiKey: KEY });
    client = new OpenAI({ apiKey: KEY, baseURL: fake.baseUrl, maxRetries: 0 });
  });
  afterAll(() => fake.close());
  const create = (c = client) => c.responses.create({ model: "gpt-5-mini", input: "hi" });

  test("a wrong key is a 401 AuthenticationError naming the masked key", async () => {
    const wrong = new OpenAI({ apiKey: "sk-wrong-key-abcd", baseURL: fake.baseUrl, maxRetries: 0 });
    const error = await rejectionOf(create(wrong));
    expect(error).toBeInstanceOf(OpenAI.AuthenticationError);
    expect(error.status).toBe(401);
    expect(error.code).toBe("invalid_api_key");
    expect(error.message).toStartWith("401 Incorrect API key provided: sk-");
    expect(error.message).toContain("abcd");
    expect(error.message).not.toContain("sk-wrong-key-abcd");
  });

  test("429 is a RateLimitError with retry-after and x-ratelimit-reset-requests", async () => {
    fake.enqueue({ kind: "error", status: 429 });
    const error = await rejectionOf(create());
    expect(error).toBeInstanceOf(OpenAI.RateLimitError);
    expect(error.code).toBe("rate_limit_exceeded");
    expect(error.type).toBe("requests");
    expect(error.headers.get("retry-after")).toBe("20");
    expect(error.headers.get("x-ratelimit-reset-requests")).toBe("20s");
  });

  test("scripted headers and message override the vendor defaults", async () => {
    fake.enqueue({ kind: "error", status: 429, message: "slow down", headers: { "retry-after": "3" } });
    const error = await rejectionOf(create());
    expect(error.message).toBe("429 slow down");
    expect(error.headers.get("retry-after")).toBe("3");
  });

  test.each([500, 503])("%d is an InternalServerError", async (status) => {
    fake.enqueue({ kind: "error", status });
    const error = await rejectionOf(create());
    expect(error).toBeInstanceOf(OpenAI.InternalServerError);
    expect(error.status).toBe(status);
    expect(error.type).toBe("server_error");
  });

  test("400 context_length_exceeded and 404 model_not_found carry their codes", async () => {
    fake.enqueue({ kind: "error", status: 400, code: "context_length_exceeded" }, { kind: "error", status: 404 });
    const tooLong = await rejectionOf(create());
    expect(tooLong).toBeInstanceOf(OpenAI.BadRequestError);
    expect(tooLong.code).toBe("context_length_exceeded");
    expect(tooLong.message).toContain("context window");
    const missing = await rejectionOf(create());
    expect(missing).toBeInstanceOf(OpenAI.NotFoundError);
    expect(missing.code).toBe("model_not_found");
    expect(missing.message).toContain("gpt-5-mini");
  });
});

describe("Chat Completions flavor errors", () => {
  const started: FakeLlm[] = [];
  const start = async (flavor: "generic" | "openrouter" | "mistral" | "ollama") => {
    const fake = await startFakeChatCompletions({ apiKey: KEY, flavor });
    started.push(fake);
    return fake;
  };
  afterAll(() => Promise.all(started.map((f) => f.close())));
  const chat = (fake: FakeLlm, apiKey = KEY) =>
    new OpenAI({ apiKey, baseURL: fake.baseUrl, maxRetries: 0 }).chat.completions.create({
      model: "m-1",
      messages: [{ role: "user", content: "hi" }],
    });

  test("generic: wrong key, 429 and 500 are the SDK's typed errors", async () => {
    const fake = await start("generic");
    expect(await rejectionOf(chat(fake, "sk-nope-0000"))).toBeInstanceOf(OpenAI.AuthenticationError);
    fake.enqueue({ kind: "error", status: 429 }, { kind: "error", status: 500 });
    expect(await rejectionOf(chat(fake))).toBeInstanceOf(OpenAI.RateLimitError);
    expect(await rejectionOf(chat(fake))).toBeInstanceOf(OpenAI.InternalServerError);
  });

  test("openrouter nests a numeric code and reports its reset in epoch ms", async () => {
    const fake = await start("openrouter");
    const auth = await rejectionOf(chat(fake, "sk-or-wrong"));
    expect(auth).toBeInstanceOf(OpenAI.AuthenticationError);
    expect(auth.error).toEqual({ message: "User not found.", code: 401 });
    fake.enqueue({ kind: "error", status: 429 });
    const limited = await rejectionOf(chat(fake));
    expect(limited).toBeInstanceOf(OpenAI.RateLimitError);
    expect(Number(limited.headers.get("x-ratelimit-reset"))).toBeGreaterThan(Date.now());
  });

  test("mistral answers 401 with a top-level message and no error object", async () => {
    const fake = await start("mistral");
    const auth = await rejectionOf(chat(fake, "wrong"));
    expect(auth).toBeInstanceOf(OpenAI.AuthenticationError);
    expect(auth.message).toBe("401 Unauthorized"); // this SDK version wraps an envelope-less body itself
    const raw = await fetch(`${fake.baseUrl}/chat/completions`, { method: "POST", body: "{}" });
    expect(raw.status).toBe(401);
    expect(await raw.json()).toMatchObject({ message: "Unauthorized", request_id: expect.any(String) });
  });

  test("ollama ignores credentials and reports a missing model as not_found_error", async () => {
    const fake = await start("ollama");
    fake.enqueue({ kind: "text", text: "fine" }, { kind: "error", status: 404 });
    const ok = await chat(fake, "anything-at-all");
    expect(ok.choices[0]?.message.content).toBe("fine");
    const missing = await rejectionOf(chat(fake));
    expect(missing).toBeInstanceOf(OpenAI.NotFoundError);
    expect(missing.error).toMatchObject({
      type: "not_found_error",
      message: 'model "m-1" not found, try pulling it first',
    });
  });
});

describe("Anthropic-shaped errors", () => {
  let fake: FakeLlm;
  let client: Anthropic;
  beforeAll(async () => {
    fake = await startFakeAnthropic({ apiKey: KEY });
    client = new Anthropic({ apiKey: KEY, baseURL: fake.baseUrl, maxRetries: 0 });
  });
  afterAll(() => fake.close());
  const params = { model: "claude-sonnet-5-5", max_tokens: 64, messages: [{ role: "user" as const, content: "hi" }] };
  const create = (c = client) => c.messages.create(params);

  test("a wrong key is an AuthenticationError with the authentication_error body", async () => {
    const wrong = new Anthropic({ apiKey: "sk-ant-wrong", baseURL: fake.baseUrl, maxRetries: 0 });
    const error = await rejectionOf(create(wrong));
    expect(error).toBeInstanceOf(Anthropic.AuthenticationError);
    expect(error.status).toBe(401);
    expect(error.type).toBe("authentication_error");
    expect(error.apiMessage).toBe("invalid x-api-key");
    expect(error.requestID).toStartWith("req_");
  });

  test("429 is a RateLimitError with retry-after and an RFC 3339 requests reset", async () => {
    fake.enqueue({ kind: "error", status: 429 });
    const error = await rejectionOf(create());
    expect(error).toBeInstanceOf(Anthropic.RateLimitError);
    expect(error.type).toBe("rate_limit_error");
    expect(error.headers.get("retry-after")).toBe("20");
    const reset = Date.parse(error.headers.get("anthropic-ratelimit-requests-reset"));
    expect(reset).toBeGreaterThan(Date.now());
  });

  test("529 is an overloaded_error (OverloadedError, an APIError with status 529)", async () => {
    fake.enqueue({ kind: "error", status: 529 });
    const error = await rejectionOf(create());
    expect(error).toBeInstanceOf(Anthropic.APIError);
    expect(error).toBeInstanceOf(Anthropic.OverloadedError);
    expect(error.status).toBe(529);
    expect(error.type).toBe("overloaded_error");
  });

  test("500 api_error, 404 not_found_error, 400 prompt too long", async () => {
    fake.enqueue(
      { kind: "error", status: 500 },
      { kind: "error", status: 404 },
      { kind: "error", status: 400, code: "context_length_exceeded" },
    );
    const server = await rejectionOf(create());
    expect(server).toBeInstanceOf(Anthropic.InternalServerError);
    expect(server.type).toBe("api_error");
    const missing = await rejectionOf(create());
    expect(missing).toBeInstanceOf(Anthropic.NotFoundError);
    expect(missing.apiMessage).toBe("model: claude-sonnet-5-5");
    const tooLong = await rejectionOf(create());
    expect(tooLong).toBeInstanceOf(Anthropic.BadRequestError);
    expect(tooLong.apiMessage).toMatch(/^prompt is too long: \d+ tokens > \d+ maximum$/);
  });

  test("a missing max_tokens is rejected like the real API", async () => {
    const { max_tokens: _, ...withoutMax } = params;
    const error = await rejectionOf(client.messages.create(withoutMax as typeof params));
    expect(error).toBeInstanceOf(Anthropic.BadRequestError);
    expect(error.type).toBe("invalid_request_error");
    expect(error.apiMessage).toBe("max_tokens: Field required");
  });
});
