import { describe, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { waImage, waSticker, waText, waVoice, webhookPayload } from "../fake/whatsapp-graph-api.ts";
import { cleanupAfterEach } from "../fixture/cleanup.ts";
import { GUEST, OWNER, STRANGER, STT_KEY, startWhatsAppWorld } from "./_whatsapp-daemon.ts";

/*
 * The WhatsApp channel end to end: the fake Graph API signs webhooks and delivers them to the compiled daemon's
 * webhook port, the daemon answers through the fake's /{phone_number_id}/messages with a fake model behind it.
 * Everything waits on a call a fake records; nothing sleeps.
 */

const defer = cleanupAfterEach();
const OGG = new Uint8Array([0x4f, 0x67, 0x67, 0x53, 0, 2, 0, 0, 0, 0, 0, 0, 7, 7, 7, 7]);
const jpeg = (n: number) => new Uint8Array([0xff, 0xd8, 0xff, 0xe0, 0, 16, 0x4a, 0x46, 0x49, 0x46, n, n, n, n]);

/** The user message of a model request: its parts as the Responses wire carries them. */
const lastUserParts = (body: any): any[] => body.input.filter((i: any) => i.role === "user").at(-1).content;

describe("WhatsApp through the compiled daemon", () => {
  test("the owner's message gets the model's answer, styled for WhatsApp, after a typing indicator", async () => {
    const { llm, wa, deliver } = await startWhatsAppWorld(defer);
    llm.setDefault({ kind: "text", text: "Hello **owner**, see [the docs](https://example.com/a_b)." });
    const message = waText(OWNER, "hi fermix");
    const reply = wa.waitForSent(OWNER);
    const answer = await deliver([message]);
    expect(answer.status).toBe(200);
    expect(await answer.json()).toEqual({ ok: true });
    const sent = await reply;
    expect(sent.body).toEqual({
      messaging_product: "whatsapp",
      recipient_type: "individual",
      to: OWNER,
      type: "text",
      text: { preview_url: false, body: "Hello *owner*, see the docs: https://example.com/a_b." },
    });
    const typing = wa.calls.find((c) => c.body.typing_indicator);
    expect(typing?.body).toEqual({
      messaging_product: "whatsapp",
      status: "read",
      message_id: message.id,
      typing_indicator: { type: "text" },
    });
    expect(typing?.status).toBe(200);
    expect(llm.requests).toHaveLength(1);
    expect(JSON.stringify(llm.requests[0]!.body.input)).toContain("hi fermix");
  });

  test("a stranger gets nothing and reaches no model; a guest is answered with the guest surface only", async () => {
    const { llm, wa, deliver, h } = await startWhatsAppWorld(defer);
    llm.setDefault({ kind: "text", text: "Hi guest." });
    const reply = wa.waitForSent(GUEST);
    expect((await deliver([waText(STRANGER, "stranger here")])).status).toBe(200);
    expect((await deliver([waText(GUEST, "guest here")])).status).toBe(200);
    expect((await reply).body.text.body).toBe("Hi guest.");
    expect(wa.sent.map((m) => m.to)).toEqual([GUEST]);
    expect(llm.requests).toHaveLength(1);
    const body = llm.requests[0]!.body;
    expect(JSON.stringify(body.input)).not.toContain("stranger here");
    const tools: string[] = (body.tools ?? []).map((t: { name: string }) => t.name);
    for (const name of ["shell", "file_read", "file_write", "web_fetch", "web_search", "request_directory_access"]) {
      expect(tools).not.toContain(name);
    }
    // Not even a typing indicator or a read mark for the stranger.
    expect(wa.calls.filter((c) => c.body.status === "read")).toHaveLength(1);
    expect(readFileSync(join(h.home, "logs", "fermix.log"), "utf8")).toContain(`dropped a message from ${STRANGER}`);
  });

  test("a 10,000-character answer goes out as ordered messages of at most 4,096 characters", async () => {
    const { llm, wa, deliver } = await startWhatsAppWorld(defer);
    const paragraphs = Array.from({ length: 9 }, (_, i) => `**Part ${i + 1}.** ${"Plain words go here. ".repeat(52)}`);
    const answer = paragraphs.join("\n\n");
    expect(answer.length).toBeGreaterThan(9800);
    llm.setDefault({ kind: "text", text: answer });
    const last = wa.waitForSent(OWNER, 0, (m) => m.body.text?.body.includes("Part 9."));
    await deliver([waText(OWNER, "write a lot")]);
    await last;
    const bodies = wa.sent.map((m) => m.body.text.body as string);
    expect(bodies.length).toBeGreaterThanOrEqual(3);
    expect(bodies.every((b) => b.length <= 4096)).toBe(true);
    // Whole paragraphs, in order, none lost.
    const joined = bodies.join("\n\n");
    expect(joined).toBe(paragraphs.map((p) => p.replace(/\*\*(Part \d\.)\*\*/, "*$1*")).join("\n\n"));
    expect(bodies[0]).toStartWith("*Part 1.*");
  });

  test("pictures sent in a row are one turn with every image part, downloaded with the token", async () => {
    const { llm, wa, deliver } = await startWhatsAppWorld(defer);
    llm.setDefault({ kind: "text", text: "Two pictures." });
    const reply = wa.waitForSent(OWNER);
    const first = wa.addMedia(jpeg(1), "image/jpeg");
    const second = wa.addMedia(jpeg(2), "image/jpeg");
    // WhatsApp sends each picture of a batch as its own webhook: one album per sender.
    expect((await deliver([waImage(OWNER, first, "our trip")])).status).toBe(200);
    expect((await deliver([waImage(OWNER, second, "day two")])).status).toBe(200);
    expect((await reply).body.text.body).toBe("Two pictures.");
    expect(llm.requests).toHaveLength(1);
    const parts = lastUserParts(llm.requests[0]!.body);
    expect(parts).toEqual([
      {
        type: "input_image",
        image_url: `data:image/jpeg;base64,${Buffer.from(jpeg(1)).toString("base64")}`,
        detail: "auto",
      },
      {
        type: "input_image",
        image_url: `data:image/jpeg;base64,${Buffer.from(jpeg(2)).toString("base64")}`,
        detail: "auto",
      },
      { type: "input_text", text: "our trip\nday two" },
    ]);
    const downloads = wa.calls.filter((c) => c.path.startsWith("/media-download/"));
    expect(downloads.map((c) => [c.status, c.headers.authorization])).toEqual([
      [200, `Bearer ${wa.token}`],
      [200, `Bearer ${wa.token}`],
    ]);
  });

  test("a voice note is transcribed, then the turn runs on the transcript", async () => {
    const { llm, wa, stt, deliver } = await startWhatsAppWorld(defer);
    llm.setDefault({ kind: "text", text: "Added to the list." });
    const reply = wa.waitForSent(OWNER);
    await deliver([waVoice(OWNER, wa.addMedia(OGG, "audio/ogg; codecs=opus"))]);
    expect((await reply).body.text.body).toBe("Added to the list.");
    expect(stt.requests).toHaveLength(1);
    expect(stt.requests[0]!.headers.authorization).toBe(`Bearer ${STT_KEY}`);
    expect(stt.requests[0]!.fields[0]).toEqual({
      name: "file",
      filename: "voice.ogg",
      type: "audio/ogg",
      size: OGG.byteLength,
    });
    expect(lastUserParts(llm.requests[0]!.body)).toEqual([{ type: "input_text", text: "buy oat milk" }]);
  });

  test("a lone reaction is the whole answer: a reaction message to the owner's message, no text", async () => {
    const { llm, wa, deliver } = await startWhatsAppWorld(defer);
    llm.enqueue({ kind: "tool_calls", calls: [{ name: "react", arguments: { emoji: "🙏" } }] });
    const message = waText(OWNER, "thanks, that's all");
    const reacted = wa.waitForSent(OWNER, 0, (m) => m.type === "reaction");
    await deliver([message]);
    expect((await reacted).body.reaction).toEqual({ message_id: message.id, emoji: "🙏" });
    // Any emoji: the tool takes a free string on WhatsApp.
    const react = llm.requests[0]!.body.tools.find((t: { name: string }) => t.name === "react");
    expect(react.parameters.properties.emoji.enum).toBeUndefined();
    expect(llm.requests).toHaveLength(1);
    expect(wa.sent.filter((m) => m.type === "text")).toHaveLength(0);
  });

  test("a webhook with a bad or missing signature is a 401 and no turn", async () => {
    const { llm, wa, deliver, url } = await startWhatsAppWorld(defer);
    llm.setDefault({ kind: "text", text: "signed one" });
    const forged = await deliver([waText(OWNER, "forged")], { signature: `sha256=${"0".repeat(64)}` });
    expect(forged.status).toBe(401);
    expect(await forged.json()).toEqual({ error: "Unauthorized" });
    const unsigned = await deliver([waText(OWNER, "unsigned")], { signature: null });
    expect(unsigned.status).toBe(401);
    // A body changed after signing: the signature is over the raw bytes.
    const original = JSON.stringify(webhookPayload(wa.phoneNumberId, [waText(OWNER, "pay 10")]));
    const tampered = await wa.deliver(url, undefined, {
      raw: original.replace("pay 10", "pay 99"),
      signature: wa.sign(original),
    });
    expect(tampered.status).toBe(401);
    const good = waText(OWNER, "the real one");
    const reply = wa.waitForSent(OWNER);
    expect((await deliver([good])).status).toBe(200);
    expect((await reply).body.text.body).toBe("signed one");
    expect(llm.requests).toHaveLength(1);
    expect(JSON.stringify(llm.requests[0]!.body.input)).not.toContain("forged");
    expect(JSON.stringify(llm.requests[0]!.body.input)).not.toContain("unsigned");
    expect(JSON.stringify(llm.requests[0]!.body.input)).not.toContain("pay 99");
  });

  test("a re-delivered message id makes one turn", async () => {
    const { llm, wa, deliver } = await startWhatsAppWorld(defer);
    llm.setDefault({ kind: "text", text: "once" });
    const message = waText(OWNER, "only once please");
    const first = wa.waitForSent(OWNER);
    expect((await deliver([message])).status).toBe(200);
    // Meta retries a delivery whose answer it did not see: the same message id again, answered 200, no turn.
    expect((await deliver([message])).status).toBe(200);
    await first;
    // The conversation's queue is FIFO: a turn for the replay would come before this one.
    llm.setDefault({ kind: "text", text: "the next" });
    const next = wa.waitForSent(OWNER, 0, (m) => m.body.text?.body === "the next");
    await deliver([waText(OWNER, "and another")]);
    await next;
    expect(llm.requests).toHaveLength(2);
    expect(wa.sent.map((m) => m.body.text.body)).toEqual(["once", "the next"]);
  });

  test("a sticker gets the looks-empty answer and no turn", async () => {
    const { llm, wa, deliver } = await startWhatsAppWorld(defer);
    const reply = wa.waitForSent(OWNER);
    await deliver([waSticker(OWNER)]);
    expect((await reply).body.text.body).toBe("Your message looks empty — send some text or media I can read.");
    expect(llm.requests).toHaveLength(0);
  });
});
