import { describe, expect, test } from "bun:test";
import type { InboundMessage } from "../../src/channels/channel.ts";
import { channelAccess } from "../../src/gateway/channel-access.ts";
import { createGateway } from "../../src/gateway/gateway.ts";
import { type AlbumTimers, createAlbumBuffer } from "../../src/media/album-buffer.ts";
import { createTestChannel } from "../fixture/test-channel.ts";

/* WhatsApp has no album id: pictures coalesce per sender, and that sender's next non-picture flushes them first. */

function manualTimers() {
  const pending = new Map<number, () => void>();
  let seq = 0;
  const timers: AlbumTimers = {
    set(run) {
      pending.set(++seq, run);
      return seq;
    },
    clear: (handle) => void pending.delete(handle as number),
  };
  const fireAll = () => {
    for (const run of [...pending.values()]) run();
  };
  return { timers, fireAll };
}

const picture = (id: string, chatId = "15550001111", text = ""): InboundMessage => ({
  id,
  channel: "whatsapp",
  chatId,
  senderId: chatId,
  text,
  attachments: [{ kind: "image", mime: "image/jpeg", download: async () => new Uint8Array([1]) }],
  mediaGroupId: `pn:${chatId}`,
});
const words = (id: string, chatId = "15550001111"): InboundMessage => ({
  id,
  channel: "whatsapp",
  chatId,
  senderId: chatId,
  text: "and this",
  attachments: [],
});

describe("albums keyed by sender", () => {
  test("a message without a group id hands its chat's pending album on first; other chats wait", () => {
    const clock = manualTimers();
    const delivered: string[] = [];
    const buffer = createAlbumBuffer((m) => void delivered.push(`${m.id}:${m.attachments.length}`), {
      debounceMs: 3000,
      timers: clock.timers,
      flushChatFirst: true,
    });
    buffer.push(picture("a"));
    buffer.push(picture("b"));
    buffer.push(picture("x", "15559999999"));
    buffer.push(words("c"));
    expect(delivered).toEqual(["a:2", "c:0"]);
    clock.fireAll();
    expect(delivered).toEqual(["a:2", "c:0", "x:1"]);
  });

  test("the gateway admits a by-sender channel's album before the text that followed it", async () => {
    const channel = createTestChannel({ name: "whatsapp", capabilities: { albumsBySender: true } });
    const turns: Array<{ text: string; images: number }> = [];
    const gateway = createGateway({
      ask: async (input) => {
        turns.push({ text: input.text, images: input.images?.length ?? 0 });
        return { response: "ok" } as never;
      },
      slash: async () => undefined,
      media: {},
      log: { info() {}, warn() {} },
      now: Date.now,
    });
    const access = channelAccess(
      "whatsapp",
      { owner_user_id: "15550001111", album_debounce_ms: 60_000 },
      {
        streaming: "off",
      },
    );
    if (!access.ok) throw new Error(access.reason);
    await channel.adapter.start(gateway.attach(channel.adapter, access.access));
    channel.push(picture("p1", "15550001111", "first"));
    channel.push(picture("p2"));
    channel.push(words("w1"));
    await channel.waitFor(() => channel.events.filter((e) => e.kind === "send").length === 2);
    expect(turns).toEqual([
      { text: "first", images: 2 },
      { text: "and this", images: 0 },
    ]);
    gateway.stopAll(new Error("done"));
  });
});
