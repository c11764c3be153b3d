/**
 * A server-sent event is read only up to a cap (MAX_EVENT_BYTES, set small here): an event that grows past it
 * ends the call with a transient error naming the limit, and the wire's contract (one terminal event) holds.
 */
import { describe, expect, test } from "bun:test";
import type { StreamEvent, Wire, WireCall } from "../../../src/providers/types.ts";
import { MAX_EVENT_BYTES } from "../../../src/providers/wires/_transport.ts";
import { openaiChatWire } from "../../../src/providers/wires/openai-chat.ts";
import { startFakeChatCompletions } from "../../fake/llm.ts";
import { fakesClosedAfterEach, NOW, request, targetFor } from "./harness.ts";

const KEY = "sk-test-event-cap-0123456789abcdef";
const started = fakesClosedAfterEach();

async function events(wire: Wire, call: WireCall, maxEventBytes: number): Promise<StreamEvent[]> {
  const out: StreamEvent[] = [];
  for await (const event of wire.stream(call, { fetch, now: () => NOW, maxEventBytes })) out.push(event);
  return out;
}

describe("the server-sent event cap", () => {
  test("an event over the cap ends the call with an error naming it; one under it streams as usual", async () => {
    const fake = await started(startFakeChatCompletions({ apiKey: KEY, flavor: "openrouter" }));
    const target = targetFor("openrouter", fake.baseUrl, KEY);
    const long = "word ".repeat(1000);
    fake.enqueue({ kind: "text", text: long, chunks: [long] });
    const cut = await events(openaiChatWire, { target, request: request("m") }, 2000);
    expect(cut.filter((e) => e.type === "text_delta")).toEqual([]);
    expect(cut.at(-1)).toMatchObject({
      type: "error",
      error: {
        class: "transient",
        message: "openrouter sent an event larger than 2000 bytes; the answer was cut there",
      },
    });

    fake.enqueue({ kind: "text", text: long, chunks: [long] });
    const whole = await events(openaiChatWire, { target, request: request("m") }, 64 * 1024);
    expect(whole.at(-1)).toMatchObject({ type: "done", stopReason: "stop" });
    expect(MAX_EVENT_BYTES).toBe(32 * 1024 * 1024);
  });

  test("an event that never ends is cut at the cap, and the endless body is not read on", async () => {
    let pulled = 0;
    // An endless `data:` line with no blank line after it, 500 bytes a chunk.
    const endless = new ReadableStream<Uint8Array>({
      pull(controller) {
        pulled++;
        controller.enqueue(new TextEncoder().encode(pulled === 1 ? "data: " : "a".repeat(500)));
      },
    });
    const fetchEndless = (async () =>
      new Response(endless, { headers: { "content-type": "text/event-stream" } })) as unknown as typeof fetch;
    const target = targetFor("openrouter", "http://127.0.0.1:9", KEY);
    const out: StreamEvent[] = [];
    const call = { target, request: request("m") };
    for await (const e of openaiChatWire.stream(call, { fetch: fetchEndless, now: () => NOW, maxEventBytes: 4000 })) {
      out.push(e);
    }
    expect(out).toEqual([
      {
        type: "error",
        error: expect.objectContaining({
          message: "openrouter sent an event larger than 4000 bytes; the answer was cut there",
        }),
      },
    ]);
    expect(pulled).toBeLessThan(20);
  });
});
