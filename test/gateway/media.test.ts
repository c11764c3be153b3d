import { describe, expect, test } from "bun:test";
import type { InboundAttachment, InboundMessage } from "../../src/channels/channel.ts";
import { IMAGE_REPLIES, prepareMessage } from "../../src/gateway/media.ts";

const JPEG = new Uint8Array([0xff, 0xd8, 0xff, 0xe0, 1, 2, 3]);

function photo(extra: Partial<InboundAttachment> = {}): InboundAttachment {
  return { kind: "image", mime: "image/jpeg", size: JPEG.byteLength, download: async () => JPEG, ...extra };
}

function message(attachments: InboundAttachment[], text = ""): InboundMessage {
  return { id: "7", channel: "telegram", chatId: "42", senderId: "1", text, attachments };
}

describe("images at the gateway", () => {
  test("a captioned photo keeps its caption and hands the bytes on", async () => {
    expect(await prepareMessage(message([photo()], "what is this?"), {})).toEqual({
      ok: true,
      text: "what is this?",
      images: [{ mime: "image/jpeg", data: JPEG }],
    });
  });

  test("several pictures download together, all or nothing", async () => {
    const started: string[] = [];
    let release!: () => void;
    const gate = new Promise<void>((resolve) => {
      release = resolve;
    });
    const slow = (name: string) =>
      photo({
        download: async () => {
          started.push(name);
          if (started.length === 3) release();
          await gate;
          return JPEG;
        },
      });
    const prepared = await prepareMessage(message([slow("a"), slow("b"), slow("c")]), {});
    expect(started).toEqual(["a", "b", "c"]);
    expect(prepared.ok && prepared.images).toHaveLength(3);

    const broken = photo({
      download: async () => {
        throw new Error("getFile 400");
      },
    });
    expect(await prepareMessage(message([photo(), broken]), {})).toEqual({
      ok: false,
      reply: IMAGE_REPLIES.downloadFailed,
    });
  });

  test("a picture over 20 MB or in a format no model reads is answered, not dropped", async () => {
    expect(await prepareMessage(message([photo({ size: 21 * 1024 * 1024 })]), {})).toEqual({
      ok: false,
      reply: IMAGE_REPLIES.tooBig(21),
    });
    expect(await prepareMessage(message([photo({ mime: "image/heic" })]), {})).toEqual({
      ok: false,
      reply: "I can't read image/heic images — send it as a photo (JPEG, PNG, GIF or WebP) and I'll look at it.",
    });
  });

  test("a document or a video that is not a voice note is left alone", async () => {
    const doc: InboundAttachment = { kind: "document", mime: "application/pdf", download: async () => JPEG };
    expect(await prepareMessage(message([doc], "see attached"), {})).toEqual({
      ok: true,
      text: "see attached",
      images: [],
    });
  });
});
