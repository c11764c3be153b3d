/**
 * An answer cut at the model's output limit is never read as a finished one: each wire turns its vendor's
 * truncation (Responses `incomplete`/`max_output_tokens`, Anthropic `max_tokens`, Chat Completions `length`)
 * into `done` with stopReason "length", keeping the text that arrived.
 */
import { afterEach, describe, expect, test } from "bun:test";
import { anthropicWire } from "../../../src/providers/wires/anthropic.ts";
import { openaiChatWire } from "../../../src/providers/wires/openai-chat.ts";
import { openaiResponsesWire } from "../../../src/providers/wires/openai-responses.ts";
import { type FakeCodex, startFakeCodex } from "../../fake/codex.ts";
import {
  type FakeReply,
  startFakeAnthropic,
  startFakeChatCompletions,
  startFakeOpenAIResponses,
} from "../../fake/llm.ts";
import { chatgptJwt, memoryTokens, signedInTarget } from "../_sign-in.ts";
import { drain, fakesClosedAfterEach, request, targetFor } from "./harness.ts";

const KEY = "sk-test-truncation-0123456789abcdef";
const started = fakesClosedAfterEach();
const CUT: FakeReply = { kind: "text", text: "A long answer that stops mid", truncated: true };

describe("a truncated answer ends in stopReason length, its text kept", () => {
  test.each(["openai", "xai"])("Responses (%s): response.incomplete for max_output_tokens", async (provider) => {
    const fake = await started(startFakeOpenAIResponses({ apiKey: KEY }));
    fake.enqueue(CUT);
    const out = await drain(openaiResponsesWire, {
      target: targetFor(provider, fake.baseUrl, KEY),
      request: request("gpt-5-mini", { maxOutputTokens: 8 }),
    });
    expect(out.text).toBe("A long answer that stops mid");
    expect(out.done?.stopReason).toBe("length");
    expect(out.done?.usage?.outputTokens).toBeGreaterThan(0);
  });

  test("Anthropic: stop_reason max_tokens", async () => {
    const fake = await started(startFakeAnthropic({ apiKey: KEY }));
    fake.enqueue(CUT);
    const out = await drain(anthropicWire, {
      target: targetFor("anthropic", fake.baseUrl, KEY),
      request: request("claude-sonnet-4-6"),
    });
    expect(out.text).toBe("A long answer that stops mid");
    expect(out.done?.stopReason).toBe("length");
  });

  test.each([
    ["openrouter", "openrouter"],
    ["mistral", "mistral"],
    ["ollama", "ollama"],
  ] as const)("Chat Completions (%s): finish_reason length", async (provider, flavor) => {
    const fake = await started(startFakeChatCompletions({ apiKey: KEY, flavor }));
    fake.enqueue(CUT);
    const key = provider === "ollama" ? undefined : KEY;
    const out = await drain(openaiChatWire, {
      target: targetFor(provider, fake.baseUrl, key),
      request: request("some-model"),
    });
    expect(out.text).toBe("A long answer that stops mid");
    expect(out.done?.stopReason).toBe("length");
  });

  test("an untruncated answer still ends in stop on every wire", async () => {
    const responses = await started(startFakeOpenAIResponses({ apiKey: KEY }));
    const anthropic = await started(startFakeAnthropic({ apiKey: KEY }));
    const chat = await started(startFakeChatCompletions({ apiKey: KEY, flavor: "openrouter" }));
    const outs = await Promise.all([
      drain(openaiResponsesWire, { target: targetFor("openai", responses.baseUrl, KEY), request: request("m") }),
      drain(anthropicWire, { target: targetFor("anthropic", anthropic.baseUrl, KEY), request: request("m") }),
      drain(openaiChatWire, { target: targetFor("openrouter", chat.baseUrl, KEY), request: request("m") }),
    ]);
    expect(outs.map((o) => o.done?.stopReason)).toEqual(["stop", "stop", "stop"]);
  });
});

describe("the Codex backend", () => {
  const ACCOUNT = "acct-trunc";
  const open: FakeCodex[] = [];
  afterEach(async () => {
    while (open.length) await open.pop()!.close();
  });
  async function codex() {
    const token = chatgptJwt(ACCOUNT);
    const fake = await startFakeCodex({ accessToken: token, accountId: ACCOUNT });
    open.push(fake);
    return { fake, target: signedInTarget("openai_codex", { base_url: fake.baseUrl }, memoryTokens(token)) };
  }
  const created = { type: "response.created", response: { id: "resp_1", status: "in_progress", output: [] } };
  const delta = (d: string) => ({ type: "response.output_text.delta", item_id: "msg_1", output_index: 0, delta: d });

  test("an answer cut at the limit is a truncated answer (length), not a failure", async () => {
    const { fake, target } = await codex();
    fake.enqueue(CUT);
    const out = await drain(openaiResponsesWire, { target, request: request("gpt-5.5") });
    expect(out.error).toBeUndefined();
    expect(out.text).toBe("A long answer that stops mid");
    expect(out.done?.stopReason).toBe("length");
  });

  test("incomplete with nothing generated is still a declared failure (the undelivered-stream reading)", async () => {
    const { fake, target } = await codex();
    fake.enqueueFrames([
      created,
      {
        type: "response.incomplete",
        response: { id: "resp_1", status: "incomplete", incomplete_details: { reason: "max_output_tokens" } },
      },
    ]);
    const out = await drain(openaiResponsesWire, { target, request: request("gpt-5.5") });
    expect(out.done).toBeUndefined();
    expect(out.error).toMatchObject({ class: "invalid_request", vendorCode: "max_output_tokens" });
  });

  test("incomplete for a content filter is not reported as an output-limit cut", async () => {
    const { fake, target } = await codex();
    fake.enqueueFrames([
      created,
      delta("Some text"),
      {
        type: "response.incomplete",
        response: { id: "resp_1", status: "incomplete", incomplete_details: { reason: "content_filter" } },
      },
    ]);
    const out = await drain(openaiResponsesWire, { target, request: request("gpt-5.5") });
    expect(out.text).toBe("Some text");
    expect(out.done?.stopReason).toBe("other");
  });
});
