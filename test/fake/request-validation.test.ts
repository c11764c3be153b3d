/**
 * The fakes reject what the real services reject (credentials, malformed bodies, broken tool-call
 * pairing, Mistral's content-beside-tool_calls rule) with the real status and body, and accept the
 * corrected request.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import OpenAI from "openai";
import { type FakeLlm, startFakeAnthropic, startFakeChatCompletions, startFakeOpenAIResponses } from "./llm.ts";

const KEY = "sk-test-validation-42";
const auth = { authorization: `Bearer ${KEY}` };

async function post(url: string, body: unknown, headers: Record<string, string> = {}) {
  const res = await fetch(url, {
    method: "POST",
    headers: { "content-type": "application/json", ...headers },
    body: typeof body === "string" ? body : JSON.stringify(body),
  });
  return { status: res.status, body: (await res.json()) as any };
}

describe("Responses request validation", () => {
  let fake: FakeLlm;
  let url: string;
  beforeAll(async () => {
    fake = await startFakeOpenAIResponses({ apiKey: KEY });
    url = `${fake.baseUrl}/responses`;
  });
  afterAll(() => fake.close());

  test("a missing key, malformed JSON, a missing model or input are 400/401 in OpenAI's words", async () => {
    const noKey = await post(url, { model: "m", input: "hi" });
    expect(noKey.status).toBe(401);
    expect(noKey.body.error.message).toStartWith("You didn't provide an API key.");
    const malformed = await post(url, "{not json", auth);
    expect(malformed).toMatchObject({ status: 400, body: { error: { type: "invalid_request_error", param: null } } });
    expect(malformed.body.error.message).toStartWith("We could not parse the JSON body of your request.");
    const noModel = await post(url, { input: "hi" }, auth);
    expect(noModel).toMatchObject({
      status: 400,
      body: { error: { param: "model", code: "missing_required_parameter" } },
    });
    const noInput = await post(url, { model: "m" }, auth);
    expect(noInput).toMatchObject({ status: 400, body: { error: { param: "input" } } });
  });

  test("a function_call_output needs its function_call inline unless previous_response_id is set", async () => {
    const output = { type: "function_call_output", call_id: "call_1", output: "42" };
    const orphan = await post(url, { model: "m", input: [output] }, auth);
    expect(orphan.status).toBe(400);
    expect(orphan.body.error.message).toBe("No tool call found for function call output with call_id call_1.");
    const call = { type: "function_call", call_id: "call_1", name: "f", arguments: "{}" };
    expect((await post(url, { model: "m", input: [call, output] }, auth)).status).toBe(200);
    expect((await post(url, { model: "m", previous_response_id: "resp_1", input: [output] }, auth)).status).toBe(200);
  });

  test("an unknown path is OpenAI's Invalid URL 404", async () => {
    const wrong = await post(`${fake.baseUrl}/v1/responses`, { model: "m", input: "hi" }, auth);
    expect(wrong).toMatchObject({ status: 404, body: { error: { message: "Invalid URL (POST /v1/v1/responses)" } } });
  });
});

describe("Chat Completions request validation", () => {
  const started: FakeLlm[] = [];
  const start = async (flavor: "generic" | "mistral") => {
    const fake = await startFakeChatCompletions({ apiKey: KEY, flavor });
    started.push(fake);
    return { fake, url: `${fake.baseUrl}/chat/completions` };
  };
  afterAll(() => Promise.all(started.map((f) => f.close())));
  const call = { id: "call_1", type: "function", function: { name: "f", arguments: "{}" } };

  test("messages must be a non-empty array", async () => {
    const { url } = await start("generic");
    expect(await post(url, { model: "m", messages: [] }, auth)).toMatchObject({
      status: 400,
      body: { error: { param: "messages", code: "empty_array" } },
    });
    expect((await post(url, { model: "m" }, auth)).status).toBe(400);
  });

  test("tool messages must answer the assistant's tool_calls, every one of them", async () => {
    const { url } = await start("generic");
    const orphan = await post(
      url,
      { model: "m", messages: [{ role: "tool", tool_call_id: "call_1", content: "x" }] },
      auth,
    );
    expect(orphan.status).toBe(400);
    expect(orphan.body.error.message).toContain("must be a response to a preceeding message with 'tool_calls'");
    const unanswered = [
      { role: "user", content: "hi" },
      { role: "assistant", content: null, tool_calls: [call] },
      { role: "user", content: "well?" },
    ];
    const missing = await post(url, { model: "m", messages: unanswered }, auth);
    expect(missing.body.error.message).toEndWith("did not have response messages: call_1");
  });

  test("mistral rejects any content key beside tool_calls with a 422, and accepts the message without it", async () => {
    const { fake, url } = await start("mistral");
    const turn = (assistant: Record<string, unknown>) => [
      { role: "user", content: "hi" },
      { role: "assistant", ...assistant, tool_calls: [call] },
      { role: "tool", tool_call_id: "call_1", content: "42" },
    ];
    for (const content of ["I'll check.", "", null]) {
      const rejected = await post(url, { model: "m", messages: turn({ content }) }, auth);
      expect(rejected).toEqual({
        status: 422,
        body: {
          object: "error",
          message: "Assistant message must have either content or tool_calls, but not both.",
          type: "invalid_request_message_error",
          param: null,
          code: null,
        },
      });
    }
    const client = new OpenAI({ apiKey: KEY, baseURL: fake.baseUrl, maxRetries: 0 });
    const error = await client.chat.completions.create({ model: "m", messages: turn({ content: "" }) as any }).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(OpenAI.UnprocessableEntityError);
    fake.enqueue({ kind: "text", text: "It is 42." });
    const ok = await client.chat.completions.create({ model: "m", messages: turn({}) as any });
    expect(ok.choices[0]?.message.content).toBe("It is 42.");
  });
});

describe("Anthropic request validation", () => {
  let fake: FakeLlm;
  let url: string;
  beforeAll(async () => {
    fake = await startFakeAnthropic({ apiKey: KEY });
    url = `${fake.baseUrl}/v1/messages`;
  });
  afterAll(() => fake.close());
  const headers = { "x-api-key": KEY, "anthropic-version": "2023-06-01" };
  const base = { model: "claude-sonnet-5-5", max_tokens: 32 };
  const problem = async (body: unknown, h: Record<string, string> = headers) => {
    const res = await post(url, body, h);
    return { status: res.status, type: res.body.error?.type, message: res.body.error?.message };
  };

  test("credentials and anthropic-version are checked before the body", async () => {
    const body = { ...base, messages: [{ role: "user", content: "hi" }] };
    expect(await problem(body, { "anthropic-version": "2023-06-01" })).toEqual({
      status: 401,
      type: "authentication_error",
      message: "x-api-key header is required",
    });
    expect(await problem(body, { "x-api-key": KEY })).toMatchObject({
      status: 400,
      message: "anthropic-version: header is required",
    });
    expect((await post(url, body, headers)).status).toBe(200);
    expect((await problem("{oops")).status).toBe(400);
  });

  test("tool_result blocks must answer the previous turn's tool_use, and every tool_use is answered", async () => {
    const toolUse = { type: "tool_use", id: "toolu_01A", name: "f", input: {} };
    const result = { type: "tool_result", tool_use_id: "toolu_01A", content: "42" };
    const orphan = await problem({ ...base, messages: [{ role: "user", content: [result] }] });
    expect(orphan.message).toStartWith(
      "messages.0.content.0: unexpected `tool_use_id` found in `tool_result` blocks: toolu_01A.",
    );
    const unanswered = await problem({
      ...base,
      messages: [
        { role: "user", content: "hi" },
        { role: "assistant", content: [toolUse] },
        { role: "user", content: "and?" },
      ],
    });
    expect(unanswered.message).toStartWith("messages.2: `tool_use` ids were found without `tool_result` blocks");
    const paired = await post(
      url,
      {
        ...base,
        messages: [
          { role: "user", content: "hi" },
          { role: "assistant", content: [toolUse] },
          { role: "user", content: [result] },
        ],
      },
      headers,
    );
    expect(paired.status).toBe(200);
  });

  test("empty text blocks and a system role inside messages are rejected", async () => {
    const empty = await problem({ ...base, messages: [{ role: "user", content: [{ type: "text", text: "" }] }] });
    expect(empty).toMatchObject({ status: 400, message: "messages: text content blocks must be non-empty" });
    const system = await problem({ ...base, messages: [{ role: "system", content: "be brief" }] });
    expect(system.message).toStartWith('messages: Unexpected role "system".');
  });
});
