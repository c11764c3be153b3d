import { describe, expect, test } from "bun:test";
import { createReplySink } from "../../src/gateway/reply-sink.ts";
import { BLOCK_IDLE_MS, BLOCK_MAX_UNITS } from "../../src/gateway/streaming/block-stream.ts";
import { openFenceAt } from "../../src/gateway/streaming/chunk-text.ts";
import { DRAFT } from "../../src/gateway/streaming/draft-stream.ts";
import { type ChannelHooks, createTestChannel, manualClock, settle } from "../fixture/test-channel.ts";

const target = { chatId: "42" };

function setup(mode: "off" | "draft" | "block", opts: { hooks?: ChannelHooks; noEdits?: boolean } = {}) {
  const clock = manualClock();
  const channel = createTestChannel(opts);
  const warnings: string[] = [];
  const sink = createReplySink(channel.adapter, target, mode, {
    clock,
    log: { warn: (m) => warnings.push(m) },
  });
  const kinds = () => channel.events.map((e) => e.kind);
  return { clock, channel, sink, warnings, kinds };
}

describe("draft streaming", () => {
  test("one message opens at 30 characters, is edited at most once a second, and is sealed to the answer", async () => {
    const editTimes: number[] = [];
    const clock = manualClock();
    const channel = createTestChannel({ hooks: { edit: () => void editTimes.push(clock.now()) } });
    const sink = createReplySink(channel.adapter, target, "draft", { clock });

    sink.onText("Hello there, ");
    await settle();
    expect(channel.events).toEqual([]); // 13 characters: nothing shown yet
    sink.onText("this is a streamed answer");
    await settle();
    expect(channel.shown("42").map((m) => m.markdown)).toEqual(["Hello there, this is a streamed answer"]);

    // Ten deltas inside one second: no edit until the second has passed, then one with the newest text.
    for (let i = 0; i < 10; i++) {
      sink.onText(` ${i}`);
      await clock.advance(50);
    }
    expect(channel.events.filter((e) => e.kind === "edit")).toHaveLength(0);
    await clock.advance(500);
    const edits = channel.events.filter((e) => e.kind === "edit");
    expect(edits).toHaveLength(1);
    expect(channel.shown("42")[0]!.markdown).toBe("Hello there, this is a streamed answer 0 1 2 3 4 5 6 7 8 9");

    // Streaming on for five seconds: about five more edits, never two within a second.
    for (let i = 0; i < 50; i++) {
      sink.onText(".");
      await clock.advance(100);
    }
    for (let i = 1; i < editTimes.length; i++) {
      expect(editTimes[i]! - editTimes[i - 1]!).toBeGreaterThanOrEqual(DRAFT.editEveryMs);
    }
    expect(editTimes.length).toBeGreaterThanOrEqual(5);
    expect(editTimes.length).toBeLessThanOrEqual(7);

    await sink.finish("The final, authoritative answer.");
    const shown = channel.shown("42");
    expect(shown).toHaveLength(1);
    expect(shown[0]!.markdown).toBe("The final, authoritative answer.");
    expect(channel.events.filter((e) => e.kind === "send")).toHaveLength(1);
  });

  test("an answer shorter than 30 characters opens no draft: it is sent once", async () => {
    const { sink, channel, kinds } = setup("draft");
    sink.onText("Yes.");
    await settle();
    await sink.finish("Yes.");
    expect(kinds()).toEqual(["send"]);
    expect(channel.shown("42")[0]!.markdown).toBe("Yes.");
  });

  test("a seal that fails is retried with backoff; one that keeps failing deletes the draft and sends fresh", async () => {
    // Two failures, then the third attempt seals.
    let failSeal = 2;
    const first = setup("draft", {
      hooks: {
        edit: (_t, _id, text) => {
          if (text.markdown === "sealed answer that is long enough" && failSeal-- > 0)
            throw new Error("Too Many Requests");
        },
      },
    });
    first.sink.onText("a draft that is long enough to open");
    await settle();
    const done = first.sink.finish("sealed answer that is long enough");
    await first.clock.advance(DRAFT.sealBackoffMs); // after attempt 1
    await first.clock.advance(DRAFT.sealBackoffMs * 2); // after attempt 2
    await done;
    expect(first.kinds()).toEqual(["send", "edit"]);
    expect(first.channel.shown("42").map((m) => m.markdown)).toEqual(["sealed answer that is long enough"]);

    // Every attempt fails: the draft goes, the answer arrives as a fresh message.
    const second = setup("draft", {
      hooks: {
        edit: (_t, _id, text) => {
          if (text.markdown.startsWith("final")) throw new Error("Bad Request: something odd");
        },
      },
    });
    second.sink.onText("a draft that is long enough to open");
    await settle();
    const sealing = second.sink.finish("final answer, complete");
    await second.clock.advance(10_000);
    await sealing;
    expect(second.kinds()).toEqual(["send", "delete", "send"]);
    expect(second.channel.shown("42").map((m) => m.markdown)).toEqual(["final answer, complete"]);
    expect(second.warnings.join("\n")).toContain("could not seal");
  });

  test('"message is not modified" counts as sealed', async () => {
    const { sink, channel, kinds } = setup("draft", {
      hooks: {
        edit: () => {
          throw new Error("Bad Request: message is not modified");
        },
      },
    });
    sink.onText("an answer that is long enough to open a draft");
    await settle();
    await sink.finish("an answer that is long enough to open a draft, finished");
    expect(kinds()).toEqual(["send"]);
    expect(channel.shown("42")).toHaveLength(1);
  });

  test("two failed edits in a row freeze the draft until the seal", async () => {
    let calls = 0;
    const { sink, clock, channel, warnings } = setup("draft", {
      hooks: {
        edit: (_t, _id, text) => {
          calls++;
          if (!text.markdown.startsWith("sealed")) throw new Error("Bad Request: flood");
        },
      },
    });
    sink.onText("a draft that is long enough to open");
    for (let i = 0; i < 10; i++) {
      sink.onText(` more ${i}`);
      await clock.advance(1000);
    }
    expect(calls).toBe(2);
    expect(warnings.join("\n")).toContain("frozen");
    await sink.finish("sealed at last");
    expect(channel.shown("42").map((m) => m.markdown)).toEqual(["sealed at last"]);
  });

  test("a draft is edited at most 300 times", async () => {
    const { sink, clock, channel } = setup("draft");
    sink.onText("a draft that is long enough to open");
    for (let i = 0; i < 400; i++) {
      sink.onText(`${i % 10}`);
      await clock.advance(1000);
    }
    expect(channel.events.filter((e) => e.kind === "edit")).toHaveLength(DRAFT.maxEdits);
    await sink.finish("the end of a long stream");
    expect(channel.events.filter((e) => e.kind === "edit")).toHaveLength(DRAFT.maxEdits + 1);
  });

  test("a draft holds 4,000 units; the rest of a longer answer follows as ordinary messages", async () => {
    const { sink, clock, channel } = setup("draft");
    const paragraph = `${"word ".repeat(199)}word`; // 999 units
    const answer = Array.from({ length: 6 }, () => paragraph).join("\n\n"); // ~6,000
    for (const part of answer.match(/[\s\S]{1,500}/g)!) {
      sink.onText(part);
      await clock.advance(1000);
    }
    const draft = channel.shown("42")[0]!;
    expect(draft.markdown.length).toBeLessThanOrEqual(DRAFT.maxUnits);
    await sink.finish(answer);
    const sends = channel.events.filter((e) => e.kind === "send");
    expect(sends).toHaveLength(2);
    const shown = channel.shown("42").map((m) => m.markdown);
    expect(shown[0]!.length).toBeLessThanOrEqual(DRAFT.maxUnits);
    expect(shown.join("\n\n")).toBe(answer);
    expect(sends[1]!.kind === "send" && sends[1]!.text.silent).toBe(true);
  });

  test("a channel whose edited message holds less (draftUnits) gets a shorter draft; nothing is lost", async () => {
    const clock = manualClock();
    const channel = createTestChannel({ capabilities: { draftUnits: 1400 } });
    const sink = createReplySink(channel.adapter, target, "draft", { clock });
    const answer = Array.from({ length: 5 }, (_, i) => `Paragraph ${i}: ${"text ".repeat(100).trim()}.`).join("\n\n");
    for (const part of answer.match(/[\s\S]{1,300}/g)!) {
      sink.onText(part);
      await clock.advance(1000);
    }
    for (const e of channel.events)
      if (e.kind !== "typing" && "text" in e) expect(e.text.markdown.length).toBeLessThanOrEqual(1400);
    await sink.finish(answer);
    const shown = channel.shown("42").map((m) => m.markdown);
    expect(shown[0]!.length).toBeLessThanOrEqual(1400);
    expect(shown.join("\n\n")).toBe(answer);
  });

  test("a text streamed after a tool call starts the draft over", async () => {
    const { sink, clock, channel } = setup("draft");
    sink.onText("Let me look that up in the files first.");
    await settle();
    sink.onItemEnd();
    sink.onText("\n\nFound it: the answer is 42, in notes.md.");
    await clock.advance(1000);
    expect(channel.shown("42")[0]!.markdown).toBe("Found it: the answer is 42, in notes.md.");
    await sink.finish("Found it: the answer is 42, in notes.md.");
    expect(channel.events.map((e) => e.kind)).toEqual(["send", "edit"]);
  });

  test("discard (a /stop or a failure) deletes the draft", async () => {
    const { sink, channel, kinds, clock } = setup("draft");
    sink.onText("a draft that is long enough to open");
    await clock.advance(500);
    sink.onText(" and more"); // an edit waits for its second
    await sink.discard();
    expect(kinds()).toEqual(["send", "delete"]);
    expect(channel.shown("42")).toEqual([]);
    sink.onText("late text after the stop");
    await clock.advance(5000);
    expect(kinds()).toEqual(["send", "delete"]);
  });

  test("a draft open while the discard arrives is still deleted", async () => {
    let release!: () => void;
    const held = new Promise<void>((r) => {
      release = r;
    });
    const { sink, kinds } = setup("draft", { hooks: { send: () => held } });
    sink.onText("a draft that is long enough to open");
    const discarded = sink.discard();
    release();
    await discarded;
    expect(kinds()).toEqual(["send", "delete"]);
  });

  test("a code block still streaming is shown with its fence closed", async () => {
    const { sink, channel } = setup("draft");
    sink.onText("Here:\n```python\nprint('hello world')\n");
    await settle();
    expect(channel.shown("42")[0]!.markdown).toBe("Here:\n```python\nprint('hello world')\n```");
  });

  test("draft on a channel that cannot edit falls back to block", async () => {
    const { sink, channel, kinds } = setup("draft", { noEdits: true });
    sink.onText("Checking the calendar now.");
    sink.onItemEnd();
    sink.onText("\n\nYou are free at 3pm.");
    await sink.finish("You are free at 3pm.");
    expect(kinds()).toEqual(["send", "send"]);
    expect(channel.shown("42").map((m) => m.markdown)).toEqual(["Checking the calendar now.", "You are free at 3pm."]);
  });
});

describe("block streaming", () => {
  test("each completed output item is its own message", async () => {
    const { sink, channel, kinds } = setup("block");
    sink.onText("Let me check ");
    sink.onText("the logs.");
    await settle();
    expect(kinds()).toEqual([]); // the item is not finished yet
    sink.onItemEnd(); // a tool call follows
    await settle();
    expect(channel.shown("42").map((m) => m.markdown)).toEqual(["Let me check the logs."]);
    sink.onText("\n\nNow the config.");
    sink.onItemEnd();
    sink.onText("\n\nThe disk is full: ");
    sink.onText("free some space.");
    await sink.finish("The disk is full: free some space.");
    expect(channel.shown("42").map((m) => m.markdown)).toEqual([
      "Let me check the logs.",
      "Now the config.",
      "The disk is full: free some space.",
    ]);
    expect(kinds()).toEqual(["send", "send", "send"]);
    // Commentary after the first message is silent; the answer notifies.
    const silent = channel.events.map((e) => (e.kind === "send" ? Boolean(e.text.silent) : undefined));
    expect(silent).toEqual([false, true, false]);
  });

  test("a long item falls back to 800–1,200-unit paragraph chunks while it streams", async () => {
    const { sink, channel } = setup("block");
    const paragraphs = Array.from({ length: 12 }, (_, i) => `Paragraph ${i}: ${"lorem ipsum ".repeat(25).trim()}.`);
    const answer = paragraphs.join("\n\n");
    for (const part of answer.match(/[\s\S]{1,40}/g)!) sink.onText(part);
    await settle();
    const streamed = channel.shown("42").length;
    expect(streamed).toBeGreaterThan(0); // chunks went out before the answer finished
    await sink.finish(answer);
    const chunks = channel.shown("42").map((m) => m.markdown);
    for (const chunk of chunks.slice(0, -1)) {
      expect(chunk.length).toBeGreaterThanOrEqual(800);
      expect(chunk.length).toBeLessThanOrEqual(BLOCK_MAX_UNITS);
      expect(chunk.endsWith(".")).toBe(true); // cut at a paragraph
    }
    expect(chunks.join("\n\n")).toBe(answer);
  });

  test("chunks of a long code block keep their fences balanced", async () => {
    const { sink, channel } = setup("block");
    const code = Array.from({ length: 120 }, (_, i) => `    total += values[${i}] * ${i};`).join("\n");
    const answer = `The loop:\n\n\`\`\`js\n${code}\n\`\`\`\n\nDone.`;
    for (const part of answer.match(/[\s\S]{1,64}/g)!) sink.onText(part);
    await sink.finish(answer);
    const chunks = channel.shown("42").map((m) => m.markdown);
    expect(chunks.length).toBeGreaterThan(2);
    for (const chunk of chunks) expect(openFenceAt(chunk)).toBeUndefined();
    expect(chunks[1]!.startsWith("```js\n")).toBe(true);
  });

  test("a second without text sends what has arrived", async () => {
    const { sink, clock, channel } = setup("block");
    sink.onText("First I will read the file");
    await clock.advance(BLOCK_IDLE_MS - 1);
    expect(channel.shown("42")).toEqual([]);
    await clock.advance(1);
    expect(channel.shown("42").map((m) => m.markdown)).toEqual(["First I will read the file"]);
    sink.onText(", then answer.");
    await sink.finish("First I will read the file, then answer.");
    expect(channel.shown("42").map((m) => m.markdown)).toEqual(["First I will read the file", ", then answer."]);
  });

  test("an idle flush inside a code block closes it and reopens it for what follows", async () => {
    const { sink, clock, channel } = setup("block");
    sink.onText("```sh\nls -la\n");
    await clock.advance(BLOCK_IDLE_MS);
    sink.onText("pwd\n```");
    await sink.finish("```sh\nls -la\npwd\n```");
    expect(channel.shown("42").map((m) => m.markdown)).toEqual(["```sh\nls -la\n```", "```sh\npwd\n```"]);
  });

  test("a provider that streamed nothing gets its answer sent whole", async () => {
    const { sink, channel, kinds } = setup("block");
    await sink.finish("All done.");
    expect(kinds()).toEqual(["send"]);
    expect(channel.shown("42")[0]!.markdown).toBe("All done.");
  });

  test("discard drops what has not gone out; sent blocks stay", async () => {
    const { sink, clock, channel } = setup("block");
    sink.onText("Looking into it.");
    sink.onItemEnd();
    sink.onText("\n\nHalf a thou");
    await sink.discard();
    await clock.advance(5000);
    expect(channel.shown("42").map((m) => m.markdown)).toEqual(["Looking into it."]);
  });

  test("a failed block is logged and the reply goes on; a failed answer rejects", async () => {
    const { sink, channel, warnings } = setup("block", {
      hooks: {
        send: (_t, text) => {
          if (text.markdown.startsWith("boom")) throw new Error("network down");
        },
      },
    });
    sink.onText("boom commentary");
    sink.onItemEnd();
    sink.onText("\n\nthe answer");
    await sink.finish("the answer");
    expect(channel.shown("42").map((m) => m.markdown)).toEqual(["the answer"]);
    expect(warnings.join("\n")).toContain("network down");

    const other = setup("block", {
      hooks: {
        send: () => {
          throw new Error("chat not found");
        },
      },
    });
    await expect(other.sink.finish("boom")).rejects.toThrow("chat not found");
  });
});

describe("streaming off", () => {
  test("the answer is sent once, at the end", async () => {
    const { sink, kinds } = setup("off");
    sink.onText("streamed text is ignored");
    sink.onItemEnd();
    await sink.finish("final");
    expect(kinds()).toEqual(["send"]);
  });
});
