import { describe, expect, test } from "bun:test";
import type { InboundAttachment, InboundMessage } from "../../src/channels/channel.ts";
import { type AlbumTimers, createAlbumBuffer } from "../../src/media/album-buffer.ts";

/** A hand-cranked clock: timers fire only when the test advances it. */
function manualTimers() {
  let now = 0;
  let seq = 0;
  const pending = new Map<number, { at: number; run: () => void }>();
  const timers: AlbumTimers = {
    set(run, ms) {
      pending.set(++seq, { at: now + ms, run });
      return seq;
    },
    clear: (handle) => void pending.delete(handle as number),
  };
  const advance = (ms: number) => {
    now += ms;
    for (const [id, timer] of [...pending].sort((a, b) => a[1].at - b[1].at)) {
      if (timer.at <= now && pending.delete(id)) timer.run();
    }
  };
  return { timers, advance, pending: () => pending.size };
}

const picture = (name: string): InboundAttachment => ({
  kind: "image",
  mime: "image/jpeg",
  filename: name,
  download: async () => new Uint8Array([1]),
});

function part(id: string, text: string, group?: string, chatId = "42"): InboundMessage {
  return {
    id,
    channel: "telegram",
    chatId,
    senderId: "1",
    text,
    attachments: [picture(`${id}.jpg`)],
    ...(group ? { mediaGroupId: group } : {}),
  };
}

function setup(debounceMs = 3000) {
  const clock = manualTimers();
  const delivered: InboundMessage[] = [];
  const buffer = createAlbumBuffer((m) => void delivered.push(m), { debounceMs, timers: clock.timers });
  return { clock, delivered, buffer };
}

describe("album buffer", () => {
  test("three parts of one album become one message: captions joined, attachments concatenated", () => {
    const { clock, delivered, buffer } = setup();
    buffer.push(part("10", "the beach", "g1"));
    buffer.push(part("11", "", "g1"));
    buffer.push(part("12", " and the sunset ", "g1"));
    expect(delivered).toEqual([]);
    clock.advance(3000);
    expect(delivered).toHaveLength(1);
    expect(delivered[0]).toMatchObject({ id: "10", text: "the beach\nand the sunset", mediaGroupId: "g1" });
    expect(delivered[0]!.attachments.map((a) => a.filename)).toEqual(["10.jpg", "11.jpg", "12.jpg"]);
    expect(buffer.pending()).toBe(0);
  });

  test("each part restarts the debounce", () => {
    const { clock, delivered, buffer } = setup();
    buffer.push(part("10", "", "g1"));
    clock.advance(2500);
    buffer.push(part("11", "", "g1"));
    clock.advance(2500);
    expect(delivered).toEqual([]);
    clock.advance(500);
    expect(delivered).toHaveLength(1);
    expect(delivered[0]!.attachments).toHaveLength(2);
  });

  test("the tenth part flushes at once; the next part starts a new album", () => {
    const { clock, delivered, buffer } = setup();
    for (let i = 0; i < 10; i++) buffer.push(part(String(i), "", "g1"));
    expect(delivered).toHaveLength(1);
    expect(delivered[0]!.attachments).toHaveLength(10);
    expect(clock.pending()).toBe(0);
    buffer.push(part("10", "late", "g1"));
    clock.advance(3000);
    expect(delivered).toHaveLength(2);
    expect(delivered[1]!.attachments).toHaveLength(1);
  });

  test("a message without a group id passes at once, even while an album collects", () => {
    const { clock, delivered, buffer } = setup();
    buffer.push(part("10", "", "g1"));
    buffer.push(part("20", "hello"));
    expect(delivered.map((m) => m.id)).toEqual(["20"]);
    clock.advance(3000);
    expect(delivered.map((m) => m.id)).toEqual(["20", "10"]);
  });

  test("albums in different chats never merge", () => {
    const { clock, delivered, buffer } = setup();
    buffer.push(part("10", "a", "g1", "42"));
    buffer.push(part("11", "b", "g1", "43"));
    clock.advance(3000);
    expect(delivered.map((m) => [m.chatId, m.attachments.length])).toEqual([
      ["42", 1],
      ["43", 1],
    ]);
  });

  test("past the key cap new albums pass uncoalesced", () => {
    const clock = manualTimers();
    const delivered: InboundMessage[] = [];
    const buffer = createAlbumBuffer((m) => void delivered.push(m), {
      debounceMs: 3000,
      maxKeys: 2,
      timers: clock.timers,
    });
    buffer.push(part("1", "", "g1"));
    buffer.push(part("2", "", "g2"));
    buffer.push(part("3", "", "g3"));
    buffer.push(part("4", "", "g1"));
    expect(delivered.map((m) => m.id)).toEqual(["3"]);
    clock.advance(3000);
    expect(delivered.map((m) => [m.id, m.attachments.length])).toEqual([
      ["3", 1],
      ["2", 1],
      ["1", 2],
    ]);
  });

  test("stop drops what is still collecting", () => {
    const { clock, delivered, buffer } = setup();
    buffer.push(part("10", "", "g1"));
    buffer.stop();
    clock.advance(3000);
    expect(delivered).toEqual([]);
  });
});
