import { describe, expect, test } from "bun:test";
import { createHmac } from "node:crypto";
import type { InboundMessage } from "../../../src/channels/channel.ts";
import { reviveWebhookMessage } from "../../../src/channels/whatsapp/webhook-payload.ts";
import { WEBHOOK_PATH, whatsappWebhookRoutes } from "../../../src/channels/whatsapp/webhook-routes.ts";
import { createDedupe } from "../../../src/gateway/webhooks/dedupe.ts";
import type { WebhookRoute } from "../../../src/gateway/webhooks/webhook-listener-contract.ts";
import { waImage, waSticker, waText, webhookPayload } from "../../fake/whatsapp-graph-api.ts";

const SECRET = "app-secret-for-unit-tests";
const PHONE = "106540352242922";
const quiet = { info() {}, warn() {} };

/** `null`: the channel has not started (no ingest yet). */
function routes(ingest: ((m: InboundMessage) => void) | null = () => {}) {
  const dedupe = createDedupe();
  const fetched: string[] = [];
  let deliveries = 0;
  const [get, post] = whatsappWebhookRoutes({
    verifyToken: "the-verify-token",
    appSecret: SECRET,
    phoneNumberId: PHONE,
    dedupe,
    fetchMedia: async (id) => {
      fetched.push(id);
      return new Uint8Array([1]);
    },
    ingest: () => ingest ?? undefined,
    onDelivery: () => void deliveries++,
    log: quiet,
  }) as [WebhookRoute, WebhookRoute];
  const send = (payload: unknown, signature?: string) => {
    const raw = new TextEncoder().encode(typeof payload === "string" ? payload : JSON.stringify(payload));
    const sig = signature ?? `sha256=${createHmac("sha256", SECRET).update(raw).digest("hex")}`;
    return post.handle(
      new Request(`http://127.0.0.1${WEBHOOK_PATH}`, { method: "POST", headers: { "x-hub-signature-256": sig } }),
      raw,
    );
  };
  return { get, post, send, dedupe, fetched, deliveries: () => deliveries };
}

describe("WhatsApp webhook routes", () => {
  test("GET answers the subscription handshake only with the right verify token", async () => {
    const { get } = routes();
    const ask = (query: string) =>
      get.handle(new Request(`http://127.0.0.1${WEBHOOK_PATH}?${query}`), new Uint8Array());
    const ok = await ask("hub.mode=subscribe&hub.verify_token=the-verify-token&hub.challenge=42");
    expect([ok.status, await ok.text()]).toEqual([200, "42"]);
    expect((await ask("hub.mode=subscribe&hub.verify_token=the-verify-toke&hub.challenge=42")).status).toBe(401);
    expect((await ask("hub.mode=subscribe&hub.challenge=42")).status).toBe(401);
    expect((await ask("hub.mode=unsubscribe&hub.verify_token=the-verify-token&hub.challenge=42")).status).toBe(400);
  });

  test("messages become gateway messages: the sender's chat, their profile name, images grouped by sender", async () => {
    const got: InboundMessage[] = [];
    const { send, fetched, deliveries } = routes((m) => void got.push(m));
    const text = waText("15550001111", "hello");
    const image = waImage("15550001111", { id: "555", mime: "image/jpeg", bytes: new Uint8Array() }, "look");
    const answer = await send(webhookPayload(PHONE, [text, image], { "15550001111": "Ada" }));
    expect([answer.status, await answer.json()]).toEqual([200, { ok: true }]);
    expect(deliveries()).toBe(1);
    expect(got.map(({ attachments: _, raw: __, ...m }) => m)).toEqual([
      {
        id: text.id,
        channel: "whatsapp",
        chatId: "15550001111",
        senderId: "15550001111",
        senderName: "Ada",
        text: "hello",
        chatType: "private",
        sentAt: Number(text.timestamp) * 1000,
      },
      {
        id: image.id,
        channel: "whatsapp",
        chatId: "15550001111",
        senderId: "15550001111",
        senderName: "Ada",
        text: "look",
        chatType: "private",
        mediaGroupId: `${PHONE}:15550001111`,
        sentAt: Number(image.timestamp) * 1000,
      },
    ]);
    // Each message keeps its own one-message delivery, which makes it again after a restart.
    const revived = reviveWebhookMessage(got[1]!.raw, PHONE, async () => new Uint8Array());
    expect(revived && { ...revived, attachments: [], raw: undefined }).toEqual({
      ...got[1]!,
      attachments: [],
      raw: undefined,
    });
    expect(got[1]!.attachments.map(({ download: _, ...a }) => a)).toEqual([{ kind: "image", mime: "image/jpeg" }]);
    // Media is fetched only when the gateway asks (after authorization).
    expect(fetched).toEqual([]);
    await got[1]!.attachments[0]!.download(1024);
    expect(fetched).toEqual(["555"]);
  });

  test("another business number's messages, receipts and reactions make no message", async () => {
    const got: InboundMessage[] = [];
    const { send } = routes((m) => void got.push(m));
    expect((await send(webhookPayload("999", [waText("15550001111", "not ours")]))).status).toBe(200);
    const receipts = webhookPayload(PHONE, []);
    receipts.entry[0].changes[0].value.statuses = [{ id: "wamid.X", status: "delivered", recipient_id: "1" }];
    delete receipts.entry[0].changes[0].value.messages;
    expect((await send(receipts)).status).toBe(200);
    const reaction = {
      from: "15550001111",
      id: "wamid.R",
      type: "reaction",
      reaction: { message_id: "x", emoji: "👍" },
    };
    expect((await send(webhookPayload(PHONE, [reaction]))).status).toBe(200);
    expect(got).toEqual([]);
    // A sticker is a message with nothing to read: the gateway answers it.
    await send(webhookPayload(PHONE, [waSticker("15550001111")]));
    expect(got.map((m) => [m.text, m.attachments.length])).toEqual([["", 0]]);
  });

  test("the signature is checked before anything is parsed; a bad envelope is a 400", async () => {
    const got: InboundMessage[] = [];
    const { send } = routes((m) => void got.push(m));
    expect((await send(webhookPayload(PHONE, [waText("1555", "x")]), "sha256=abc")).status).toBe(401);
    expect((await send("{not json", `sha256=${"0".repeat(64)}`)).status).toBe(401);
    expect((await send("{not json")).status).toBe(400);
    expect((await send({ object: "whatsapp_business_account" })).status).toBe(400);
    expect(got).toEqual([]);
  });

  test("a repeated message id is dropped; one whose dispatch failed is forgotten so the retry runs it", async () => {
    let fail = true;
    const got: string[] = [];
    const { send } = routes((m) => {
      if (fail) throw new Error("queue full");
      got.push(m.id);
    });
    const message = waText("15550001111", "retry me");
    const failed = await send(webhookPayload(PHONE, [message]));
    expect([failed.status, await failed.json()]).toEqual([500, { error: "Webhook dispatch failed" }]);
    fail = false;
    expect((await send(webhookPayload(PHONE, [message]))).status).toBe(200);
    expect((await send(webhookPayload(PHONE, [message]))).status).toBe(200);
    expect(got).toEqual([message.id]);
  });

  test("before the channel has started a delivery is refused with a 500, so Meta delivers it again", async () => {
    const { send, dedupe } = routes(null);
    const message = waText("15550001111", "early");
    expect((await send(webhookPayload(PHONE, [message]))).status).toBe(500);
    expect(dedupe.first("whatsapp", message.id)).toBe(true);
  });
});
