import { describe, expect, test } from "bun:test";
import { oneOffDeps } from "../../../src/channels/registry.ts";
import { createWhatsAppChannel } from "../../../src/channels/whatsapp/whatsapp-channel.ts";
import type { WebhookRoute } from "../../../src/gateway/webhooks/webhook-listener-contract.ts";
import { type FakeWhatsApp, startFakeWhatsApp, waText } from "../../fake/whatsapp-graph-api.ts";
import { cleanupAfterEach } from "../../fixture/cleanup.ts";

/* The adapter against the fake Graph API, in process: what it sends, refuses and reports. */

const defer = cleanupAfterEach();
const OWNER = "15550001111";
const png = new Uint8Array([0x89, 0x50, 0x4e, 0x47, 1, 2, 3]);

async function adapterOn(config: Record<string, unknown> = {}, clock = { now: 1_000_000 }) {
  const wa = await startFakeWhatsApp();
  defer(() => wa.close());
  const routes: WebhookRoute[] = [];
  const logs: string[] = [];
  const log = (msg: string) => void logs.push(msg);
  const adapter = createWhatsAppChannel({
    ...oneOffDeps({
      config: {
        access_token: wa.token,
        app_secret: wa.appSecret,
        verify_token: wa.verifyToken,
        phone_number_id: wa.phoneNumberId,
        api_base_url: wa.baseUrl,
        ...config,
      },
      resolveSecret: (ref) => String(ref),
      log: { info: log, warn: log, error: log },
      now: () => clock.now,
    }),
    webhooks: { register: (route) => void routes.push(route) },
  });
  return { wa, adapter, routes, logs, clock };
}

/** The owner has written (their 24-hour window is open), and the message they wrote. */
function ownerWrote(wa: FakeWhatsApp) {
  const message = waText(OWNER, "hi");
  wa.noteInbound([message]);
  return message;
}

describe("the WhatsApp adapter", () => {
  test("refuses to build without its keys, naming them", () => {
    expect(() =>
      createWhatsAppChannel(
        oneOffDeps({ config: { access_token: "x" }, resolveSecret: String, log: console, now: Date.now }),
      ),
    ).toThrow(
      "the WhatsApp channel is enabled but has no phone_number_id, app_secret, verify_token: run `fermix setup --channel whatsapp`",
    );
  });

  test("registers GET and POST /webhook/whatsapp when it is built; start checks the number with Graph", async () => {
    const { adapter, routes, wa } = await adapterOn();
    expect(routes.map((r) => `${r.method} ${r.path}`)).toEqual(["GET /webhook/whatsapp", "POST /webhook/whatsapp"]);
    expect(adapter.health().connected).toBe(false);
    await adapter.start(() => {});
    expect(wa.calls[0]).toMatchObject({
      method: "GET",
      path: wa.phoneNumberId,
      version: "v25.0",
      query: { fields: "id,display_phone_number,verified_name" },
    });
    expect(adapter.health()).toEqual({ connected: true });
  });

  test("a refused token fails the start with the fix; the token never shows", async () => {
    const { adapter, wa } = await adapterOn({ access_token: "EAAGwrongTokenThatMustNotPrint00000" });
    const err = await adapter.start(() => {}).catch((e: Error) => e);
    expect((err as { code?: string }).code).toBe("whatsapp_token_rejected");
    expect((err as Error).message).toContain("WhatsApp refused the access token");
    expect((err as Error).message).toContain("fermix setup --channel whatsapp");
    expect((err as Error).message).not.toContain("EAAGwrongTokenThatMustNotPrint00000");
    expect(wa.calls[0]!.status).toBe(401);
  });

  test("a token refused later marks the channel degraded until a send goes through", async () => {
    const { adapter, wa } = await adapterOn();
    await adapter.start(() => {});
    ownerWrote(wa);
    wa.failNext("/messages", { status: 401, code: 190, message: "Error validating access token: Session has expired" });
    await expect(adapter.send({ chatId: OWNER }, { markdown: "one" })).rejects.toThrow("Session has expired");
    expect(adapter.health().degraded).toStartWith("WhatsApp refuses the access token");
    expect(adapter.health().connected).toBe(false);
    await adapter.send({ chatId: OWNER }, { markdown: "two" });
    expect(adapter.health()).toEqual({ connected: true });
  });

  test("files: uploaded, then sent by media id; Markdown goes as a text document; audio drops its caption", async () => {
    const { adapter, wa } = await adapterOn();
    ownerWrote(wa);
    const target = { chatId: OWNER };
    await adapter.sendFile!(target, {
      kind: "image",
      bytes: png,
      filename: "chart.png",
      mime: "image/png",
      caption: "Q3",
    });
    await adapter.sendFile!(target, { kind: "document", bytes: png, filename: "notes.md", mime: "text/markdown" });
    await adapter.sendFile!(target, {
      kind: "audio",
      bytes: png,
      filename: "memo.mp3",
      mime: "audio/mpeg",
      caption: "listen",
    });
    const [image, notes, audio] = wa.sent;
    expect(image!.body).toMatchObject({ type: "image", image: { caption: "Q3" } });
    expect(wa.uploads.get(image!.body.image.id)).toMatchObject({ type: "image/png", filename: "chart.png" });
    expect(notes!.body).toMatchObject({ type: "document", document: { filename: "notes.md" } });
    expect(wa.uploads.get(notes!.body.document.id)).toMatchObject({ type: "text/plain" });
    expect(audio!.body.audio).toEqual({ id: expect.any(String) });
    const upload = wa.calls.find((c) => c.path.endsWith("/media"))!;
    expect(upload.body).toEqual({ messaging_product: "whatsapp", type: "image/png" });
    expect(upload.headers.authorization).toBe(`Bearer ${wa.token}`);
  });

  test("over the cap or the wrong format is refused before anything is uploaded", async () => {
    const { adapter, wa } = await adapterOn();
    const target = { chatId: OWNER };
    const big = new Uint8Array(5 * 1024 * 1024 + 1);
    await expect(
      adapter.sendFile!(target, { kind: "image", bytes: big, filename: "big.jpg", mime: "image/jpeg" }),
    ).rejects.toThrow("big.jpg is 5 MB; WhatsApp takes images of up to 5 MB. Send it as a document instead");
    await expect(
      adapter.sendFile!(target, { kind: "voice", bytes: png, filename: "v.mp3", mime: "audio/mpeg" }),
    ).rejects.toThrow("a WhatsApp voice note must be audio/ogg with the Opus codec");
    await expect(
      adapter.sendFile!(target, { kind: "image", bytes: png, filename: "a.gif", mime: "image/gif" }),
    ).rejects.toThrow("a.gif is image/gif, which WhatsApp does not send; it takes JPEG or PNG images");
    expect(wa.calls).toHaveLength(0);
  });

  test("typing marks the message read once per 20 s, however often the gateway asks", async () => {
    const { adapter, wa, clock } = await adapterOn();
    const message = ownerWrote(wa);
    const target = { chatId: OWNER, replyTo: message.id };
    await adapter.typing!(target);
    clock.now += 4000;
    await adapter.typing!(target);
    clock.now += 17_000;
    await adapter.typing!(target);
    await adapter.typing!({ chatId: OWNER });
    expect(wa.calls.map((c) => [c.body.message_id, c.status])).toEqual([
      [message.id, 200],
      [message.id, 200],
    ]);
  });

  test("inbound media over the cap is refused before any download; otherwise fetched fresh with the token", async () => {
    const { adapter, routes, wa } = await adapterOn();
    let got: { attachments: Array<{ download(max: number): Promise<Uint8Array> }> } | undefined;
    await adapter.start((m) => {
      got = m;
    });
    const media = wa.addMedia(png, "image/png");
    const payload = {
      object: "whatsapp_business_account",
      entry: [
        {
          changes: [
            {
              field: "messages",
              value: {
                metadata: { phone_number_id: wa.phoneNumberId },
                messages: [
                  { from: OWNER, id: "wamid.1", type: "image", image: { id: media.id, mime_type: "image/png" } },
                ],
              },
            },
          ],
        },
      ],
    };
    const raw = JSON.stringify(payload);
    const post = routes.find((r) => r.method === "POST")!;
    const answer = await post.handle(
      new Request("http://127.0.0.1/webhook/whatsapp", {
        method: "POST",
        headers: { "x-hub-signature-256": wa.sign(raw) },
      }),
      new TextEncoder().encode(raw),
    );
    expect(answer.status).toBe(200);
    const before = wa.calls.length;
    await expect(got!.attachments[0]!.download(3)).rejects.toThrow("over the");
    expect(wa.calls.filter((c) => c.path.startsWith("/media-download/"))).toHaveLength(0);
    expect(Array.from(await got!.attachments[0]!.download(1024))).toEqual(Array.from(png));
    expect(wa.calls.slice(before).map((c) => [c.method, c.path, c.status])).toEqual([
      ["GET", media.id, 200],
      ["GET", media.id, 200],
      ["GET", `/media-download/${media.id}`, 200],
    ]);
  });

  test("check: a phone number id Graph does not know is a failure with where to find the right one", async () => {
    const { adapter } = await adapterOn({ phone_number_id: "123456789012" });
    const check = await adapter.check();
    expect(check).toMatchObject({ ok: false });
    expect(check.detail).toStartWith("WhatsApp does not know phone number id 123456789012");
    expect((check as { fix: string }).fix).toContain("WhatsApp > API Setup");
  });
});
