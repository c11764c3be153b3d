import { describe, expect, test } from "bun:test";
import { createServer } from "node:net";
import { createDedupe } from "../../src/gateway/webhooks/dedupe.ts";
import { createWebhookListener, MAX_WEBHOOK_BODY_BYTES } from "../../src/gateway/webhooks/webhook-listener.ts";

const quiet = { info() {}, error() {} };

/** A free loopback port, found by letting the kernel pick one. */
function freePort(): Promise<number> {
  const server = createServer();
  return new Promise((resolve) =>
    server.listen(0, "127.0.0.1", () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    }),
  );
}

describe("the webhook listener", () => {
  test("serves only the registered routes, hands them the raw body, and 404s everything else", async () => {
    const port = await freePort();
    const listener = createWebhookListener({ port, log: quiet });
    expect(listener.start()).toEqual({ state: "idle" }); // no route: no port opened
    listener.register({
      method: "POST",
      path: "/webhook/test",
      handle: async (_req, raw) => Response.json({ bytes: raw.byteLength, text: new TextDecoder().decode(raw) }),
    });
    listener.register({
      method: "GET",
      path: "/webhook/boom",
      handle: async () => {
        throw new Error("broken");
      },
    });
    expect(listener.start()).toEqual({ state: "listening", port });
    const base = `http://127.0.0.1:${port}`;
    const ok = await fetch(`${base}/webhook/test`, { method: "POST", body: '{"a": 1}' });
    expect(await ok.json()).toEqual({ bytes: 8, text: '{"a": 1}' });
    for (const [method, path] of [
      ["GET", "/webhook/test"],
      ["POST", "/setup"],
      ["GET", "/"],
    ] as const) {
      const res = await fetch(`${base}${path}`, { method });
      expect(res.status).toBe(404);
    }
    const failed = await fetch(`${base}/webhook/boom`);
    expect(failed.status).toBe(500);
    expect(await failed.json()).toEqual({ error: "Webhook dispatch failed" });
    await listener.stop();
  });

  test("a body past the cap is refused unread with a 413", async () => {
    const port = await freePort();
    const listener = createWebhookListener({ port, log: quiet });
    let handled = 0;
    listener.register({ method: "POST", path: "/webhook/x", handle: async () => new Response(String(++handled)) });
    listener.start();
    const big = await fetch(`http://127.0.0.1:${port}/webhook/x`, {
      method: "POST",
      body: new Uint8Array(MAX_WEBHOOK_BODY_BYTES + 1),
    });
    expect([big.status, await big.json()]).toEqual([413, { error: "Payload too large" }]);
    expect(handled).toBe(0);
    await listener.stop();
  });

  test("a port in use is a state with the fix, not a thrown error", async () => {
    const port = await freePort();
    const holder = createServer();
    await new Promise<void>((resolve) => holder.listen(port, "127.0.0.1", () => resolve()));
    const listener = createWebhookListener({ port, log: quiet });
    listener.register({ method: "POST", path: "/webhook/x", handle: async () => new Response("ok") });
    expect(listener.start()).toEqual({
      state: "failed",
      port,
      reason: `port ${port} on 127.0.0.1 is in use; set [fermix_web] webhook_port to a free port`,
    });
    await new Promise<void>((resolve) => holder.close(() => resolve()));
  });
});

describe("webhook dedupe", () => {
  test("a message id makes one turn within 24 h; forget() lets a failed dispatch be retried", () => {
    const clock = { now: 0 };
    const dedupe = createDedupe({ now: () => clock.now });
    expect(dedupe.first("slack", "m1")).toBe(true);
    expect(dedupe.first("slack", "m1")).toBe(false);
    expect(dedupe.first("whatsapp", "m1")).toBe(true);
    dedupe.forget("slack", "m1");
    expect(dedupe.first("slack", "m1")).toBe(true);
    clock.now += 24 * 60 * 60 * 1000 + 1;
    expect(dedupe.first("slack", "m1")).toBe(true);
  });
});
