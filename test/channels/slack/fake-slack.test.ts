import { describe, expect, test } from "bun:test";
import { startFakeSlack } from "../../fake/slack-api.ts";
import { cleanupAfterEach } from "../../fixture/cleanup.ts";

/* The fake Slack is as strict as Slack about what it is sent: these are the refusals the adapter must not earn. */

const defer = cleanupAfterEach();

async function fake() {
  const slack = await startFakeSlack({ ackTimeoutMs: 100 });
  defer(() => slack.close());
  const call = async (method: string, body: Record<string, string>, headers: Record<string, string> = {}) => {
    const response = await fetch(`${slack.apiUrl}${method}`, {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded", ...headers },
      body: new URLSearchParams(body),
    });
    return { status: response.status, body: (await response.json()) as any };
  };
  const bot = { authorization: `Bearer ${slack.botToken}` };
  return { slack, call, bot };
}

describe("the fake Slack Web API", () => {
  test("tokens: none, a wrong one, the wrong kind, and JSON with the token in the body are refused", async () => {
    const { slack, call, bot } = await fake();
    expect((await call("auth.test", {})).body).toEqual({ ok: false, error: "not_authed" });
    expect((await call("auth.test", {}, { authorization: "Bearer xoxb-nope" })).body.error).toBe("invalid_auth");
    expect((await call("auth.test", {}, { authorization: `Bearer ${slack.appToken}` })).body.error).toBe(
      "not_allowed_token_type",
    );
    expect((await call("apps.connections.open", {}, bot)).body.error).toBe("not_allowed_token_type");
    expect((await call("auth.test", { token: slack.botToken })).body.ok).toBe(true);
    const json = await fetch(`${slack.apiUrl}auth.test`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ token: slack.botToken }),
    });
    expect(await json.json()).toEqual({ ok: false, error: "not_authed" });
  });

  test("chat.postMessage: an unknown channel, no text, and text over 40,000 characters are refused", async () => {
    const { slack, call, bot } = await fake();
    const channel = slack.dm("U0OWNER001");
    expect((await call("chat.postMessage", { channel: "C0NONE", text: "x" }, bot)).body.error).toBe(
      "channel_not_found",
    );
    expect((await call("chat.postMessage", { channel, text: " " }, bot)).body.error).toBe("no_text");
    expect((await call("chat.postMessage", { channel, text: "x".repeat(40_001) }, bot)).body.error).toBe(
      "msg_too_long",
    );
    const ok = await call("chat.postMessage", { channel, text: "x".repeat(40_000) }, bot);
    expect(ok.body).toMatchObject({ ok: true, channel });
    slack.failNext("chat.postMessage", { status: 429, retryAfter: 7 });
    const limited = await fetch(`${slack.apiUrl}chat.postMessage`, { method: "POST", headers: bot });
    expect(limited.status).toBe(429);
    expect(limited.headers.get("retry-after")).toBe("7");
    expect(await limited.json()).toEqual({ ok: false, error: "ratelimited" });
  });

  test("url_private needs the bot token: without it, a redirect to the sign-in page", async () => {
    const { slack } = await fake();
    const file = slack.addFile(new Uint8Array([1, 2, 3]), { name: "a.png", mimetype: "image/png", filetype: "png" });
    const anonymous = await fetch(file.url_private, { redirect: "manual" });
    expect(anonymous.status).toBe(302);
    const followed = await fetch(file.url_private);
    expect(followed.headers.get("content-type")).toStartWith("text/html");
    const authed = await fetch(file.url_private, { headers: { authorization: `Bearer ${slack.botToken}` } });
    expect(new Uint8Array(await authed.arrayBuffer())).toEqual(new Uint8Array([1, 2, 3]));
  });
});

describe("the fake Socket Mode", () => {
  test("a ticket opens one connection; an envelope not acknowledged is sent again with retry_attempt", async () => {
    const { slack } = await fake();
    const open = await fetch(`${slack.apiUrl}apps.connections.open`, {
      method: "POST",
      headers: { authorization: `Bearer ${slack.appToken}` },
    });
    const { url } = (await open.json()) as { url: string };
    const frames: any[] = [];
    const arrived: Array<() => void> = [];
    const socket = new WebSocket(url);
    socket.onmessage = (m) => {
      frames.push(JSON.parse(String(m.data)));
      arrived.shift()?.();
    };
    const frame = () => new Promise<void>((resolve) => arrived.push(resolve));
    await frame();
    expect(frames[0]).toMatchObject({ type: "hello", connection_info: { app_id: "A0FERMIX01" } });
    expect((await fetch(url.replace("ws://", "http://"))).status).toBe(401);

    const sent = frame();
    const envelope = await slack.sendEvent(slack.message({ user: "U0OWNER001", text: "hi" }));
    await sent;
    expect(frames[1]).toMatchObject({ type: "events_api", retry_attempt: 0, payload: { type: "event_callback" } });
    await frame();
    expect(frames[2]).toMatchObject({ envelope_id: envelope.envelopeId, retry_attempt: 1, retry_reason: "timeout" });
    socket.send(JSON.stringify({ envelope_id: envelope.envelopeId }));
    await envelope.acked;
    expect(envelope.attempts).toBe(2);
    socket.close();
  });
});
