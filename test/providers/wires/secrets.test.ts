/**
 * A key must never reach an error message: those end up in logs, traces and the terminal. Vendors echo
 * a wrong key back (OpenAI masks long ones but repeats short ones whole), so every failure path is
 * driven with both the right key and wrong ones.
 */
import { describe, expect, test } from "bun:test";
import type { Wire } from "../../../src/providers/types.ts";
import { anthropicWire } from "../../../src/providers/wires/anthropic.ts";
import { openaiChatWire } from "../../../src/providers/wires/openai-chat.ts";
import { openaiResponsesWire } from "../../../src/providers/wires/openai-responses.ts";
import {
  type FakeLlm,
  type FakeReply,
  startFakeAnthropic,
  startFakeChatCompletions,
  startFakeOpenAIResponses,
} from "../../fake/llm.ts";
import { closedPort, drain, fakesClosedAfterEach, request, targetFor } from "./harness.ts";

const KEY = "sk-secret-0123456789abcdefghijklmnop";
const WRONG_KEYS = ["sk-wrong-0123456789abcdefghijklmnop", "sk-oops"];
const started = fakesClosedAfterEach();

const FAILURES: FakeReply[] = [
  { kind: "error", status: 429 },
  { kind: "error", status: 400, code: "context_length_exceeded" },
  { kind: "error", status: 404 },
  { kind: "error", status: 500 },
  { kind: "cut", text: "half an answ" },
  { kind: "hang" },
];

const WIRES: Array<[name: string, wire: Wire, provider: string, start: (apiKey?: string) => Promise<FakeLlm>]> = [
  ["openai-responses", openaiResponsesWire, "openai", (apiKey) => startFakeOpenAIResponses({ apiKey })],
  ["openai-chat (OpenAI-compatible)", openaiChatWire, "openrouter", (apiKey) => startFakeChatCompletions({ apiKey })],
  [
    "openai-chat (openrouter)",
    openaiChatWire,
    "openrouter",
    (apiKey) => startFakeChatCompletions({ apiKey, flavor: "openrouter" }),
  ],
  [
    "openai-chat (mistral)",
    openaiChatWire,
    "mistral",
    (apiKey) => startFakeChatCompletions({ apiKey, flavor: "mistral" }),
  ],
  ["anthropic", anthropicWire, "anthropic", (apiKey) => startFakeAnthropic({ apiKey })],
];

describe.each(WIRES)("%s never puts the key in an error", (_name, wire, provider, start) => {
  test("on any failure with the right key", async () => {
    const fake = await started(start(KEY));
    const target = targetFor(provider, fake.baseUrl, KEY, 200);
    const refused = targetFor(provider, await closedPort(() => start()), KEY);
    const errors = [];
    for (const reply of FAILURES) {
      fake.enqueue(reply);
      errors.push((await drain(wire, { target, request: request("some-model") })).error);
    }
    errors.push((await drain(wire, { target: refused, request: request("some-model") })).error);
    expect(errors.every((e) => e !== undefined)).toBe(true);
    for (const error of errors) expect(JSON.stringify(error)).not.toContain(KEY);
  });

  test.each(WRONG_KEYS)("on an auth failure with the wrong key %s", async (wrong) => {
    const fake = await started(start(KEY));
    const { error } = await drain(wire, { target: targetFor(provider, fake.baseUrl, wrong), request: request("m") });
    expect(error).toMatchObject({ class: "auth", status: 401 });
    expect(JSON.stringify(error)).not.toContain(wrong);
  });
});
