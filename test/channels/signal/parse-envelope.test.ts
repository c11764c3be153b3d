import { describe, expect, test } from "bun:test";
import { parseReceive } from "../../../src/channels/signal/parse-envelope.ts";

const OWNER = "+15551110001";
const OWNER_UUID = "8a1c2b3d-4e5f-4a6b-8c7d-9e0f1a2b3c4d";
const reads: Array<{ id: string; maxBytes: number }> = [];
const deps = (known: string[] = [OWNER]) => ({
  known: new Set(known),
  readAttachment: async (id: string, maxBytes: number) => {
    reads.push({ id, maxBytes });
    return new Uint8Array([1]);
  },
});

/** A `receive` notification's params as signal-cli 0.14 writes them. */
function params(data: Record<string, unknown> | null, envelope: Record<string, unknown> = {}) {
  return {
    account: "+15550000001",
    envelope: {
      source: OWNER,
      sourceNumber: OWNER,
      sourceUuid: OWNER_UUID,
      sourceName: "Owner",
      sourceDevice: 1,
      timestamp: 1700000000000,
      serverReceivedTimestamp: 1700000000100,
      serverDeliveredTimestamp: 1700000000200,
      ...(data
        ? { dataMessage: { timestamp: 1700000000000, message: null, expiresInSeconds: 0, viewOnce: false, ...data } }
        : {}),
      ...envelope,
    },
  };
}

describe("parseReceive", () => {
  test("a one-to-one text: the sender's number is chat and sender, the timestamp the message id", () => {
    const notification = params({ message: "hi" });
    expect(parseReceive(notification, deps())).toEqual({
      kind: "message",
      message: {
        id: "1700000000000",
        channel: "signal",
        chatId: OWNER,
        senderId: OWNER,
        senderName: "Owner",
        text: "hi",
        attachments: [],
        chatType: "private",
        sentAt: 1700000000000,
        // The notification itself, kept in memory.db to revive the message after a restart.
        raw: notification,
      },
    });
  });

  test("a sender config.toml knows by UUID is identified by it; a hidden number leaves only the UUID", () => {
    const byUuid = parseReceive(params({ message: "hi" }), deps([OWNER_UUID]));
    expect(byUuid.kind === "message" && [byUuid.message.senderId, byUuid.message.chatId]).toEqual([
      OWNER_UUID,
      OWNER_UUID,
    ]);
    const hidden = parseReceive(params({ message: "hi" }, { source: OWNER_UUID, sourceNumber: null }), deps([]));
    expect(hidden.kind === "message" && hidden.message.senderId).toBe(OWNER_UUID);
  });

  test("groups are dropped with a reason; receipts, typing, sync, reactions, deletions and timers silently", () => {
    expect(parseReceive(params({ message: "x", groupInfo: { groupId: "g=", type: "DELIVER" } }), deps())).toEqual({
      kind: "ignored",
      why: `a group message from ${OWNER} (fermix answers one-to-one chats only)`,
    });
    expect(parseReceive(params({ message: "x", groupV2: { id: "g=" } }), deps()).kind).toBe("ignored");
    for (const data of [
      { reaction: { emoji: "👍", targetSentTimestamp: 1, isRemove: false } },
      { remoteDelete: { timestamp: 1 } },
      { isExpirationUpdate: true },
    ]) {
      expect(parseReceive(params(data), deps())).toEqual({ kind: "ignored" });
    }
    for (const other of [
      { receiptMessage: { isDelivery: true } },
      { typingMessage: { action: "STARTED" } },
      { syncMessage: {} },
    ]) {
      expect(parseReceive(params(null, other), deps())).toEqual({ kind: "ignored" });
    }
    expect(
      parseReceive({ account: "+1", exception: { message: "decryption failed", type: "ProtocolException" } }, deps()),
    ).toEqual({
      kind: "ignored",
      why: "signal-cli could not read a message: decryption failed",
    });
    expect(parseReceive("nonsense", deps()).kind).toBe("ignored");
  });

  test("attachments: kinds from the content type, audio transcribed, the long-text body left out, read by stored id", async () => {
    const parsed = parseReceive(
      params({
        message: "see these",
        attachments: [
          { contentType: "image/jpeg", filename: "a.jpg", id: "abc.jpg", size: 10, width: 1, height: 1 },
          { contentType: "audio/aac", filename: null, id: "voice.m4a", size: 20 },
          { contentType: "application/pdf", filename: "doc.pdf", id: "doc.pdf", size: 30 },
          { contentType: "text/x-signal-plain", filename: null, id: "long.txt", size: 3000 },
          { contentType: "video/mp4", filename: null, id: null, size: null },
        ],
      }),
      deps(),
    );
    if (parsed.kind !== "message") throw new Error("not a message");
    const shape = parsed.message.attachments.map(({ download, ...rest }) => rest);
    expect(shape).toEqual([
      { kind: "image", mime: "image/jpeg", size: 10, filename: "a.jpg" },
      { kind: "audio", mime: "audio/aac", size: 20, transcribe: true },
      { kind: "document", mime: "application/pdf", size: 30, filename: "doc.pdf" },
      { kind: "video", mime: "video/mp4" },
    ]);
    await parsed.message.attachments[0]!.download(123);
    expect(reads.at(-1)).toEqual({ id: "abc.jpg", maxBytes: 123 });
    await expect(parsed.message.attachments[3]!.download(1)).rejects.toThrow("did not store this attachment");
  });
});
