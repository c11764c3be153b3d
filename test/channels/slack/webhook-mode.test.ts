import { describe, expect, test } from "bun:test";
import { createServer } from "node:net";
import type { InboundMessage } from "../../../src/channels/channel.ts";
import { oneOffDeps } from "../../../src/channels/registry.ts";
import { verifySlackSignature } from "../../../src/channels/slack/request-signature.ts";
import { createSlackChannel } from "../../../src/channels/slack/slack-channel.ts";
import { createDedupe } from "../../../src/gateway/webhooks/dedupe.ts";
import { createWebhookListener } from "../../../src/gateway/webhooks/webhook-listener.ts";
import { startFakeSlack } from "../../fake/slack-api.ts";
import { cleanupAfterEach } from "../../fixture/cleanup.ts";
import { recordingLog } from "../telegram/_support.ts";

const defer = cleanupAfterEach();
const OWNER = "U0OWNER001";

function freePort(): Promise<number> {
  const server = createServer();
  return new Promise((resolve) =>
    server.listen(0, "127.0.0.1", () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    }),
  );
}

/** The adapter in webhook mode behind a real webhook listener, as the daemon runs it. */
async function webhookChannel() {
  const fake = await startFakeSlack();
  defer(() => fake.close());
  const log = recordingLog();
  const listener = createWebhookListener({ port: await freePort(), log });
  defer(() => listener.stop());
  const adapter = await createSlackChannel(
    oneOffDeps({
      config: {
        enabled: true,
        mode: "webhook",
        bot_token: fake.botToken,
        signing_secret: fake.signingSecret,
        owner_user_id: OWNER,
        api_base_url: fake.apiUrl,
      },
      resolveSecret: (ref) => String(ref),
      log,
      now: () => Date.now(),
      webhooks: listener,
      dedupe: createDedupe(),
    }),
  );
  const inbox: InboundMessage[] = [];
  const waiting: Array<(m: InboundMessage) => void> = [];
  await adapter.start((message) => {
    const next = waiting.shift();
    if (next) next(message);
    else inbox.push(message);
  });
  defer(() => adapter.stop());
  const state = listener.start();
  if (state.state !== "listening") throw new Error(`the webhook listener did not start: ${JSON.stringify(state)}`);
  const url = `http://127.0.0.1:${state.port}/webhook/slack`;
  const next = () =>
    inbox.length ? Promise.resolve(inbox.shift()!) : new Promise<InboundMessage>((resolve) => waiting.push(resolve));
  return { fake, adapter, log, url, inbox, next };
}

describe("the Slack adapter in webhook mode", () => {
  test("url_verification is answered with its challenge; a signed event is answered 200 and handed on", async () => {
    const { fake, url, next, adapter } = await webhookChannel();
    const verify = await fake.deliver(url, {
      token: "t",
      challenge: "3eZbrw1aBm2rZgRNFdxV2595E9CY3gmdALWMmHkvFXO7tYXAYM8P",
      type: "url_verification",
    });
    expect(verify.status).toBe(200);
    expect(await verify.json()).toEqual({ challenge: "3eZbrw1aBm2rZgRNFdxV2595E9CY3gmdALWMmHkvFXO7tYXAYM8P" });

    const dm = fake.message({ user: OWNER, text: "over http" });
    const answer = await fake.deliver(url, fake.eventCallback(dm));
    expect(answer.status).toBe(200);
    expect(await answer.json()).toEqual({ ok: true });
    expect(await next()).toMatchObject({ id: dm.ts, chatId: dm.channel, senderId: OWNER, text: "over http" });
    expect(adapter.health()).toMatchObject({ connected: true });
    expect(fake.callsOf("auth.test")).toHaveLength(1);
    expect(fake.callsOf("apps.connections.open")).toHaveLength(0);
  });

  test("a wrong signature, a stale timestamp or a missing one is 401 Unauthorized and nothing is handed on", async () => {
    const { fake, url, inbox, adapter, log, next } = await webhookChannel();
    const body = fake.eventCallback(fake.message({ user: OWNER, text: "forged" }));
    const wrongSecret = await fake.deliver(url, body, { secret: "not-the-signing-secret" });
    expect(wrongSecret.status).toBe(401);
    expect(await wrongSecret.json()).toEqual({ error: "Unauthorized" });
    const stale = await fake.deliver(url, body, { timestamp: Math.floor(Date.now() / 1000) - 301 });
    expect(stale.status).toBe(401);
    const unsigned = await fetch(url, { method: "POST", body: JSON.stringify(body) });
    expect(unsigned.status).toBe(401);
    expect(adapter.health().degraded).toContain("signing_secret");
    // A signed request after them is the first message handed on, and the only one.
    const good = fake.message({ user: OWNER, text: "genuine" });
    expect((await fake.deliver(url, fake.eventCallback(good))).status).toBe(200);
    expect((await next()).text).toBe("genuine");
    expect(inbox).toHaveLength(0);
    expect(adapter.health().degraded).toBeUndefined();
    expect(log.lines.filter((l) => l.startsWith("warn slack: refused a webhook request"))).toHaveLength(3);
    expect(log.lines.join("\n")).not.toContain(fake.signingSecret);
  });

  test("Slack's retry of an event it thinks was lost is answered and makes no second message", async () => {
    const { fake, url, next, inbox } = await webhookChannel();
    const dm = fake.message({ user: OWNER, text: "once" });
    const first = fake.eventCallback(dm, { eventId: "Ev0RETRY001" });
    expect((await fake.deliver(url, first)).status).toBe(200);
    expect((await next()).text).toBe("once");
    const retry = await fake.deliver(url, first, { retryNum: 1 });
    expect(retry.status).toBe(200);
    const after = fake.message({ user: OWNER, text: "then this" });
    await fake.deliver(url, fake.eventCallback(after));
    expect((await next()).text).toBe("then this");
    expect(inbox).toHaveLength(0);
  });

  test("a signed body that is not JSON is 400 Invalid webhook", async () => {
    const { fake, url } = await webhookChannel();
    const timestamp = Math.floor(Date.now() / 1000);
    const raw = "not json";
    const hmac = new Bun.CryptoHasher("sha256", fake.signingSecret).update(`v0:${timestamp}:${raw}`).digest("hex");
    const answer = await fetch(url, {
      method: "POST",
      headers: { "x-slack-request-timestamp": String(timestamp), "x-slack-signature": `v0=${hmac}` },
      body: raw,
    });
    expect(answer.status).toBe(400);
    expect(await answer.json()).toEqual({ error: "Invalid webhook" });
  });
});

describe("Slack's request signature", () => {
  const secret = "8f742231b10e8888abcd99edabcd00d5";
  const body = new TextEncoder().encode('{"type":"event_callback"}');
  const sign = (ts: number, raw = body) =>
    `v0=${new Bun.CryptoHasher("sha256", secret).update(`v0:${ts}:`).update(raw).digest("hex")}`;
  const headers = (ts: number, signature: string) =>
    new Headers({ "x-slack-request-timestamp": String(ts), "x-slack-signature": signature });
  const now = 1_700_000_000_000;

  test("holds for the raw body within 300 s either way, and for nothing else", () => {
    const ts = now / 1000;
    expect(verifySlackSignature(headers(ts, sign(ts)), body, secret, now)).toEqual({ ok: true });
    expect(verifySlackSignature(headers(ts - 300, sign(ts - 300)), body, secret, now).ok).toBe(true);
    expect(verifySlackSignature(headers(ts + 300, sign(ts + 300)), body, secret, now).ok).toBe(true);
    expect(verifySlackSignature(headers(ts - 301, sign(ts - 301)), body, secret, now)).toEqual({
      ok: false,
      reason: "the request timestamp is more than 5 minutes away from now",
    });
    // The same JSON re-serialised (a space added) is another body.
    const reformatted = new TextEncoder().encode('{"type": "event_callback"}');
    expect(verifySlackSignature(headers(ts, sign(ts)), reformatted, secret, now).ok).toBe(false);
    expect(verifySlackSignature(headers(ts, sign(ts)), body, `${secret}x`, now).ok).toBe(false);
    expect(verifySlackSignature(headers(ts, "v1=abc"), body, secret, now).ok).toBe(false);
    expect(verifySlackSignature(new Headers(), body, secret, now).ok).toBe(false);
  });
});
