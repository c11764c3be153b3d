import { describe, expect, test } from "bun:test";
import { createReplySink } from "../../src/gateway/reply-sink.ts";
import type { PhaseFields, StreamPhase } from "../../src/gateway/streaming/stream-trace.ts";
import { streamTrace } from "../../src/gateway/streaming/stream-trace.ts";
import { createTestChannel, manualClock, settle } from "../fixture/test-channel.ts";

const target = { chatId: "42" };

function setup(mode: "off" | "draft" | "block", opts: { noEdits?: boolean } = {}) {
  const clock = manualClock();
  const channel = createTestChannel(opts);
  const phases: Array<{ phase: StreamPhase } & PhaseFields> = [];
  const sink = createReplySink(channel.adapter, target, mode, {
    clock,
    trace: (phase, fields) => phases.push({ phase, ...fields }),
  });
  const texts = () => channel.shown("42").map((m) => m.markdown);
  return { clock, channel, sink, phases, texts };
}

describe("💭 lines in block streaming", () => {
  test("each summary part's heading is a silent message of its own, before the answer", async () => {
    const { channel, sink, texts, phases } = setup("block");
    sink.onThought("**Reading the question**\n\nThe owner wants a date.");
    sink.onThought("**Checking the calendar**\n\nFriday looks open.");
    sink.onText("Friday is free.");
    await sink.finish("Friday is free.");
    expect(texts()).toEqual(["💭 Reading the question", "💭 Checking the calendar", "Friday is free."]);
    const sends = channel.events.flatMap((e) => (e.kind === "send" ? [e.text.silent === true] : []));
    expect(sends).toEqual([true, true, false]);
    expect(phases).toEqual([
      { phase: "open" },
      { phase: "block", chars: "💭 Reading the question".length, thought: true },
      { phase: "block", chars: "💭 Checking the calendar".length, thought: true },
      { phase: "seal", chars: "Friday is free.".length },
    ]);
  });

  test("text that streamed before a thought goes out first, and the thought after it", async () => {
    const { sink, texts } = setup("block");
    sink.onText("Let me look that up.");
    sink.onItemEnd();
    sink.onText("Still ");
    sink.onThought("**Comparing the two dates**");
    sink.onText("checking.");
    await settle();
    expect(texts()).toEqual(["Let me look that up.", "Still", "💭 Comparing the two dates"]);
    await sink.finish("Still checking.");
    expect(texts().at(-1)).toBe("checking.");
  });

  test("a part with no words sends nothing, and nothing is shown after the reply is closed", async () => {
    const { sink, texts } = setup("block");
    sink.onThought("   ");
    await sink.finish("Done.");
    sink.onThought("**Too late**");
    await settle();
    expect(texts()).toEqual(["Done."]);
  });

  test("a stopped turn keeps the thoughts already sent and is traced as discarded", async () => {
    const { sink, texts, phases } = setup("block");
    sink.onThought("**Planning**");
    await sink.discard();
    expect(texts()).toEqual(["💭 Planning"]);
    expect(phases.map((p) => p.phase)).toEqual(["open", "block", "discard"]);
  });

  test("a channel that cannot edit gets blocks for a draft, thoughts included", async () => {
    const { sink, texts } = setup("draft", { noEdits: true });
    sink.onThought("**Planning**");
    await sink.finish("Done.");
    expect(texts()).toEqual(["💭 Planning", "Done."]);
  });
});

describe("draft and off show no thoughts", () => {
  test("draft: the draft opens, is edited and sealed, with no 💭 line; each step traced", async () => {
    const { clock, channel, sink, phases, texts } = setup("draft");
    sink.onThought("**Planning the answer**");
    sink.onText("The answer is being written out, ");
    await settle();
    sink.onText("piece by piece.");
    await clock.advance(1000);
    sink.onThought("**Second thought**");
    await sink.finish("The answer, complete.");
    expect(texts()).toEqual(["The answer, complete."]);
    expect(channel.events.filter((e) => e.kind === "send")).toHaveLength(1);
    expect(phases.map((p) => p.phase)).toEqual(["open", "edit", "seal"]);
  });

  test("draft: a stopped turn deletes the draft and is traced as discarded", async () => {
    const { sink, phases, channel } = setup("draft");
    sink.onText("A draft long enough to be opened on the chat.");
    await settle();
    await sink.discard();
    expect(channel.shown("42")).toEqual([]);
    expect(phases.map((p) => p.phase)).toEqual(["open", "discard"]);
  });

  test("draft: an answer too short to open a draft is sent once, open then seal", async () => {
    const { sink, phases, texts } = setup("draft");
    sink.onText("Yes.");
    await sink.finish("Yes.");
    expect(texts()).toEqual(["Yes."]);
    expect(phases.map((p) => p.phase)).toEqual(["open", "seal"]);
  });

  test("off: the answer alone, traced open then seal", async () => {
    const { sink, phases, texts } = setup("off");
    sink.onThought("**Planning**");
    sink.onText("Yes.");
    await sink.finish("Yes.");
    expect(texts()).toEqual(["Yes."]);
    expect(phases).toEqual([
      { phase: "open", chars: 4 },
      { phase: "seal", chars: 4 },
    ]);
  });
});

describe("streamTrace", () => {
  test("writes channel_stream lines with the session, channel, mode and phase", () => {
    const lines: Array<[string, Record<string, unknown>]> = [];
    const trace = streamTrace({
      traces: { write: (type, record) => void lines.push([type, record]), capture: false },
      sessionId: "main-abc123",
      channel: "telegram",
      mode: "block",
    });
    trace("open");
    trace("block", { chars: 12, thought: true });
    expect(lines).toEqual([
      ["channel_stream", { session_id: "main-abc123", channel: "telegram", mode: "block", phase: "open" }],
      [
        "channel_stream",
        { session_id: "main-abc123", channel: "telegram", mode: "block", phase: "block", chars: 12, thought: true },
      ],
    ]);
  });

  test("without traces it writes nothing", () => {
    expect(() => streamTrace(undefined)("seal")).not.toThrow();
  });
});
