import { describe, expect, test } from "bun:test";
import { type FakeDiscord, startFakeDiscord } from "../../fake/discord-api.ts";
import { cleanupAfterEach } from "../../fixture/cleanup.ts";

/* The fake Discord is as strict as Discord about what it is sent: checked here with raw requests and sockets. */

const defer = cleanupAfterEach();
const OWNER = { id: "111111111111111111", username: "owner" };
const DM = "711111111111111111";

async function fake(options: Parameters<typeof startFakeDiscord>[0] = {}) {
  const dc = await startFakeDiscord(options);
  defer(() => dc.close());
  return dc;
}

const rest = (dc: FakeDiscord, method: string, path: string, body?: unknown, auth = true) =>
  fetch(`${dc.baseUrl}/v10${path}`, {
    method,
    headers: {
      ...(auth ? { authorization: `Bot ${dc.token}` } : {}),
      ...(body === undefined ? {} : { "content-type": "application/json" }),
    },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });

/** A raw gateway client: the frames it got, what it sends, and how the socket ended. */
function client(url: string) {
  const socket = new WebSocket(url);
  const frames: any[] = [];
  const waiters: Array<{ predicate: (f: any) => boolean; resolve: (f: any) => void }> = [];
  socket.onmessage = (event) => {
    const frame = JSON.parse(String(event.data));
    frames.push(frame);
    for (const w of [...waiters]) if (w.predicate(frame)) waiters.splice(waiters.indexOf(w), 1) && w.resolve(frame);
  };
  const closed = new Promise<{ code: number; reason: string }>((resolve) => {
    socket.onclose = (event) => resolve({ code: event.code, reason: event.reason });
  });
  return {
    frames,
    closed,
    send: (payload: unknown) => socket.send(typeof payload === "string" ? payload : JSON.stringify(payload)),
    next: (predicate: (f: any) => boolean) => {
      const found = frames.find(predicate);
      return found ? Promise.resolve(found) : new Promise<any>((resolve) => waiters.push({ predicate, resolve }));
    },
    close: () => socket.close(),
  };
}

const identify = (token: string, intents = 37377) => ({
  op: 2,
  d: { token, intents, properties: { os: "linux", browser: "test", device: "test" } },
});

describe("the fake Discord REST API", () => {
  test("auth, unknown routes and channels, and the message rules answer with Discord's codes", async () => {
    const dc = await fake();
    dc.userMessage({ channelId: DM, author: OWNER, content: "hi" });
    const cases: Array<[Response, number, Record<string, unknown>]> = [
      [await rest(dc, "GET", "/users/@me", undefined, false), 401, { message: "401: Unauthorized", code: 0 }],
      [await rest(dc, "GET", "/nowhere"), 404, { message: "404: Not Found", code: 0 }],
      [
        await rest(dc, "POST", "/channels/1/messages", { content: "x" }),
        404,
        { message: "Unknown Channel", code: 10003 },
      ],
      [
        await rest(dc, "POST", `/channels/${DM}/messages`, { content: "  " }),
        400,
        { message: "Cannot send an empty message", code: 50006 },
      ],
      [
        await rest(dc, "POST", `/channels/${DM}/messages`, { content: "😀".repeat(2001) }),
        400,
        {
          message: "Invalid Form Body",
          code: 50035,
          errors: {
            content: { _errors: [{ code: "BASE_TYPE_MAX_LENGTH", message: "Must be 2000 or fewer in length." }] },
          },
        },
      ],
      [
        await rest(dc, "POST", `/channels/${DM}/messages`, { content: "x", message_reference: { message_id: "5" } }),
        400,
        { code: 50035 },
      ],
      [
        await rest(dc, "POST", `/channels/${DM}/messages`, {
          content: "x",
          components: [{ type: 1, components: [{ type: 2, style: 3, label: "A", custom_id: "x".repeat(101) }] }],
        }),
        400,
        { code: 50035 },
      ],
    ];
    for (const [response, status, body] of cases) {
      expect(response.status).toBe(status);
      expect(await response.json()).toMatchObject(body);
    }
    const lenient = await rest(dc, "POST", `/channels/${DM}/messages`, {
      content: "😀".repeat(2000),
      message_reference: { message_id: "5", fail_if_not_exists: false },
    });
    expect(lenient.status).toBe(200);
    expect(((await lenient.json()) as { message_reference?: unknown }).message_reference).toBeUndefined();
  });

  test("a 429 is Discord's, and the route stays limited: an early retry is limited again", async () => {
    const dc = await fake();
    dc.userMessage({ channelId: DM, author: OWNER, content: "hi" });
    dc.failNext("POST /channels/:channel/messages", { status: 429, retryAfter: 30 });
    const limited = await rest(dc, "POST", `/channels/${DM}/messages`, { content: "x" });
    expect(limited.status).toBe(429);
    expect(limited.headers.get("retry-after")).toBe("30");
    expect(limited.headers.get("x-ratelimit-remaining")).toBe("0");
    expect(limited.headers.get("x-ratelimit-scope")).toBe("user");
    expect(await limited.json()).toEqual({ message: "You are being rate limited.", retry_after: 30, global: false });
    const early = await rest(dc, "POST", `/channels/${DM}/messages`, { content: "x" });
    expect(early.status).toBe(429);
    expect(Number(early.headers.get("x-ratelimit-reset-after"))).toBeLessThanOrEqual(30);
  });

  test("an interaction is answered once, with its own token, without the bot's", async () => {
    const dc = await fake();
    const session = client(`${dc.gatewayUrl}?v=10&encoding=json`);
    defer(() => session.close());
    await session.next((f) => f.op === 10);
    session.send(identify(dc.token));
    await session.next((f) => f.t === "READY");
    dc.userMessage({ channelId: DM, author: OWNER, content: "hi" });
    const sent = (await (await rest(dc, "POST", `/channels/${DM}/messages`, { content: "pick" })).json()) as {
      id: string;
    };
    const tap = dc.tap({ messageId: sent.id, customId: "grant:AB12", user: OWNER });
    const wrong = await rest(dc, "POST", `/interactions/${tap.id}/not-the-token/callback`, { type: 6 }, false);
    expect(wrong.status).toBe(404);
    expect(await wrong.json()).toEqual({ message: "Unknown interaction", code: 10062 });
    const bad = await rest(dc, "POST", `/interactions/${tap.id}/${tap.token}/callback`, { type: 1 }, false);
    expect(bad.status).toBe(400);
    const first = await rest(dc, "POST", `/interactions/${tap.id}/${tap.token}/callback`, { type: 6 }, false);
    expect(first.status).toBe(204);
    const again = await rest(dc, "POST", `/interactions/${tap.id}/${tap.token}/callback`, { type: 6 }, false);
    expect(await again.json()).toEqual({ message: "Interaction has already been acknowledged.", code: 40060 });
  });
});

describe("the fake Discord gateway", () => {
  test("Hello first; Identify checked for the token, the intents and twice; nothing before it but heartbeats", async () => {
    const dc = await fake({ messageContentIntent: false });
    const url = `${dc.gatewayUrl}?v=10&encoding=json`;
    const cases: Array<[unknown[], number]> = [
      [[{ op: 3, d: {} }], 4003],
      [[identify("wrong")], 4004],
      [["{not json"], 4002],
      [[identify(dc.token)], 4014],
      [[identify(dc.token, 1 | 512 | 4096), identify(dc.token, 1 | 512 | 4096)], 4005],
      [[identify(dc.token, 1 | 512 | 4096), { op: 42, d: null }], 4001],
    ];
    for (const [sends, code] of cases) {
      const c = client(url);
      const hello = await c.next((f) => f.op === 10);
      expect(hello.d.heartbeat_interval).toBeGreaterThan(0);
      for (const payload of sends) c.send(payload);
      expect((await c.closed).code).toBe(code);
    }
    const old = client(`${dc.gatewayUrl}?v=9&encoding=json`);
    expect((await old.closed).code).toBe(4012);
  });

  test("heartbeats are acknowledged; a Resume of an unknown session is told op 9 (false)", async () => {
    const dc = await fake();
    const c = client(`${dc.gatewayUrl}?v=10&encoding=json`);
    defer(() => c.close());
    await c.next((f) => f.op === 10);
    c.send({ op: 1, d: null });
    await c.next((f) => f.op === 11);
    c.send({ op: 6, d: { token: dc.token, session_id: "nope", seq: 3 } });
    expect(await c.next((f) => f.op === 9)).toMatchObject({ op: 9, d: false });
  });

  test("a Resume replays what the session sent after the client's sequence, then RESUMED", async () => {
    const dc = await fake();
    const first = client(`${dc.gatewayUrl}?v=10&encoding=json`);
    await first.next((f) => f.op === 10);
    first.send(identify(dc.token));
    const ready = await first.next((f) => f.t === "READY");
    const seen = dc.userMessage({ channelId: DM, author: OWNER, content: "seen" });
    await first.next((f) => f.d?.id === seen.id);
    dc.dropSocket();
    await first.closed;
    const missed = dc.userMessage({ channelId: DM, author: OWNER, content: "missed" });
    const second = client(`${ready.d.resume_gateway_url}?v=10&encoding=json`);
    defer(() => second.close());
    await second.next((f) => f.op === 10);
    second.send({ op: 6, d: { token: dc.token, session_id: ready.d.session_id, seq: 2 } });
    await second.next((f) => f.t === "RESUMED");
    expect(second.frames.filter((f) => f.op === 0).map((f) => [f.s, f.t, f.d?.id ?? null])).toEqual([
      [3, "MESSAGE_CREATE", missed.id],
      [4, "RESUMED", null],
    ]);
  });
});
