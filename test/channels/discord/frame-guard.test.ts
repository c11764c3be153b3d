import { describe, expect, test } from "bun:test";
import { createDiscordRest } from "../../../src/channels/discord/discord-rest.ts";
import { frameProblem } from "../../../src/channels/discord/frame-guard.ts";
import { createGatewaySession, RECONNECT_BACKOFF } from "../../../src/channels/discord/gateway-session.ts";
import { startFakeDiscord } from "../../fake/discord-api.ts";
import { cleanupAfterEach } from "../../fixture/cleanup.ts";
import { recordingLog } from "../telegram/_support.ts";

const defer = cleanupAfterEach();
const READY_D = { session_id: "abc123", resume_gateway_url: "wss://gateway-us-east1-b.discord.gg", user: { id: "1" } };

describe("Discord gateway frames are checked before @discordjs/ws dereferences them", () => {
  test("what the library reads unchecked must be there; everything else passes untouched", () => {
    const ok = [
      { op: 0, t: "READY", s: 1, d: READY_D },
      { op: 0, t: "RESUMED", s: 7, d: null },
      { op: 0, t: "MESSAGE_CREATE", s: 2, d: null },
      { op: 9, d: false },
      { op: 10, d: { heartbeat_interval: 41_250 } },
      { op: 11 },
      { op: 7, d: null },
      { op: 1, d: null },
      { op: 99, d: "unknown ops are the library's to ignore" },
      null,
      42,
    ];
    for (const frame of ok) expect(frameProblem(frame)).toBeUndefined();
    expect(frameProblem({ op: 0, t: "READY", s: 1, d: null })).toBe("a READY without its session (d: null)");
    expect(frameProblem({ op: 0, t: "READY", s: 1 })).toBe("a READY without its session (d: missing)");
    expect(frameProblem({ op: 0, t: "READY", s: 1, d: { ...READY_D, session_id: 5 } })).toBe(
      "a READY without a session id (session_id: 5)",
    );
    expect(frameProblem({ op: 0, t: "READY", s: 1, d: { ...READY_D, resume_gateway_url: "file:///etc" } })).toBe(
      'a READY whose resume_gateway_url is not a ws:// or wss:// URL ("file:///etc")',
    );
    expect(frameProblem({ op: 0, t: null, s: 1, d: {} })).toBe("a dispatch without an event name (t: null)");
    expect(frameProblem({ op: 0, t: "MESSAGE_CREATE", s: "9", d: {} })).toBe(
      'a MESSAGE_CREATE dispatch without a sequence number (s: "9")',
    );
    expect(frameProblem({ op: 9, d: null })).toBe("an Invalid Session (op 9) whose d is not true or false (null)");
    expect(frameProblem({ op: 10, d: null })).toBe(
      "a Hello (op 10) whose heartbeat_interval is not 1000–600000 ms (missing)",
    );
    // A 1 ms beat would flood the gateway; one past 2^31 ms overflows the timer into the same flood.
    expect(frameProblem({ op: 10, d: { heartbeat_interval: 1 } })).toContain("is not 1000–600000 ms (1)");
    expect(frameProblem({ op: 10, d: { heartbeat_interval: 2 ** 40 } })).toContain("is not 1000–600000 ms");
  });

  test('READY with "d": null: dropped, the channel is degraded and says so, then a reconnect with back-off brings the session', async () => {
    const fake = await startFakeDiscord();
    defer(() => fake.close());
    fake.gateway.malformReady(null);
    const log = recordingLog();
    const dispatched: string[] = [];
    const session = createGatewaySession({
      token: fake.token,
      rest: createDiscordRest({ baseUrl: fake.baseUrl, token: fake.token }),
      log,
      now: Date.now,
      onDispatch: (type) => dispatched.push(type),
    });
    await session.start();
    defer(() => session.stop());

    // An unhandled rejection here (the library reading d.session_id) would fail this test file outright.
    const [first] = await fake.gateway.waitForMalformed(1);
    const ended = await fake.gateway.waitForClose((c) => c.connection === first!.connection);
    // fermix ended that connection itself (a normal close), rather than waiting out the library's 15 s READY timeout.
    expect(ended.code).toBe(1000);
    expect(ended.at - first!.at).toBeLessThan(5000);
    expect(session.health()).toEqual({
      connected: false,
      degraded: expect.stringContaining("Discord's gateway sent a READY without its session (d: null)"),
    });
    expect(log.lines.join("\n")).toContain(
      "warn discord: Discord's gateway sent a READY without its session (d: null)",
    );

    const [, second] = await fake.gateway.waitForMalformed(2);
    fake.gateway.malformReady(undefined);
    await fake.waitForSession();
    const identifies = fake.gateway.frames.filter((f) => f.op === 2).map((f) => f.at);
    expect(identifies).toHaveLength(3);
    // Back-off, not the library's fixed 500 ms: the first wait is 0.8–1 s, the second twice that.
    const least = RECONNECT_BACKOFF.initialMs * 0.8;
    expect(identifies[1]! - ended.at).toBeGreaterThanOrEqual(least - 50);
    expect(identifies[2]! - second!.at).toBeGreaterThanOrEqual(2 * least - 50);
    await waitFor(() => session.health().connected);
    expect(session.health().degraded).toBeUndefined();
    // Only the good READY reached the adapter.
    expect(dispatched).toEqual(["READY"]);
  });

  test("stop while the gateway has not answered Identify returns at once (the library's destroy alone hung forever)", async () => {
    const fake = await startFakeDiscord();
    defer(() => fake.close());
    fake.gateway.silenceReady(true);
    const session = createGatewaySession({
      token: fake.token,
      rest: createDiscordRest({ baseUrl: fake.baseUrl, token: fake.token }),
      log: recordingLog(),
      now: Date.now,
      onDispatch: () => {},
    });
    await session.start();
    const identify = await fake.gateway.waitForFrame((f) => f.op === 2);
    const asked = Date.now();
    await session.stop();
    expect(Date.now() - asked).toBeLessThan(1000);
    // The connection was closed normally by fermix, not left to the library's reconnect.
    const closed = await fake.gateway.waitForClose((c) => c.connection === identify.connection);
    expect(closed.code).toBe(1000);
  });

  test("stop during the back-off returns at once: the wait is woken, not waited out", async () => {
    const fake = await startFakeDiscord();
    defer(() => fake.close());
    fake.gateway.malformReady(null);
    const session = createGatewaySession({
      token: fake.token,
      rest: createDiscordRest({ baseUrl: fake.baseUrl, token: fake.token }),
      log: recordingLog(),
      now: Date.now,
      onDispatch: () => {},
    });
    await session.start();
    const [first] = await fake.gateway.waitForMalformed(1);
    await fake.gateway.waitForClose((c) => c.connection === first!.connection);
    const asked = Date.now();
    await session.stop();
    expect(Date.now() - asked).toBeLessThan(RECONNECT_BACKOFF.initialMs / 2);
  });
});

/** Polls a condition the session reaches on its own event (READY handled after the fake recorded it sent). */
async function waitFor(condition: () => boolean, deadlineMs = 5000): Promise<void> {
  const deadline = Date.now() + deadlineMs;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error("condition not reached");
    await new Promise((resolve) => setImmediate(resolve));
  }
}
