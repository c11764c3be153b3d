import { describe, expect, test } from "bun:test";
import {
  createSocketMode,
  DEGRADED_AFTER,
  RECONNECT_MS,
  RETRY_MAX_MS,
  RETRY_MIN_MS,
} from "../../../src/channels/slack/socket-mode.ts";
import { startFakeSlack } from "../../fake/slack-api.ts";
import { cleanupAfterEach } from "../../fixture/cleanup.ts";
import { gatedSleep, recordingLog } from "../telegram/_support.ts";

/*
 * The Socket Mode loop around @slack/socket-mode, against the fake: its waits are held by the test (no clock), so
 * each reconnect happens when the test releases it.
 */

const defer = cleanupAfterEach();

async function connected(options: { random?: () => number; now?: () => number; maxFrameChars?: number } = {}) {
  const fake = await startFakeSlack();
  defer(() => fake.close());
  const log = recordingLog();
  const gate = gatedSleep();
  const events: unknown[] = [];
  const waiting: Array<() => void> = [];
  /** Resolves when the loop hands on its next event: everything before it on the socket has been read. */
  const nextEvent = () => new Promise<void>((resolve) => waiting.push(resolve));
  const socket = createSocketMode({
    appToken: fake.appToken,
    apiUrl: fake.apiUrl,
    log,
    redact: (text) => text.replaceAll(fake.appToken, "<app-token>"),
    now: options.now ?? (() => Date.now()),
    onEvent: (event) => {
      events.push(event);
      waiting.shift()?.();
    },
    sleep: gate.sleep,
    // No jitter unless the test asks: the shared backoff's waits are read at their ceilings.
    random: options.random ?? (() => 0),
    ...(options.maxFrameChars ? { maxFrameChars: options.maxFrameChars } : {}),
  });
  defer(() => socket.stop());
  await socket.start();
  return { fake, log, gate, socket, events, nextEvent };
}

describe("Socket Mode's own reconnect loop", () => {
  test("failed reconnects back off, five make the channel degraded, and the next connection clears it", async () => {
    const { fake, gate, socket, log, nextEvent } = await connected();
    expect(socket.health().connected).toBe(true);
    fake.failNext("apps.connections.open", { status: 503 }, DEGRADED_AFTER);
    fake.requestReconnect();
    await gate.waitForSleeps(1);
    expect(gate.waits[0]).toBe(RECONNECT_MS);
    for (let n = 1; n <= DEGRADED_AFTER; n++) {
      gate.release();
      await gate.waitForSleeps(n + 1);
    }
    expect(gate.waits.slice(1)).toEqual([1, 2, 4, 8, 16].map((x) => x * RETRY_MIN_MS));
    const degraded = socket.health();
    expect(degraded.connected).toBe(false);
    expect(degraded.degraded).toStartWith("Socket Mode failed to connect 5 times in a row (last: ");
    expect(log.lines.filter((l) => l.startsWith("error slack: degraded"))).toHaveLength(1);
    gate.release();
    await fake.waitForHello(2);
    // An event after the hello: by the time it is handed on, the loop has taken the new connection in.
    const handed = nextEvent();
    await (await fake.sendEvent(fake.message({ user: "U0OWNER001", text: "back" }))).acked;
    await handed;
    expect(socket.health()).toMatchObject({ connected: true });
    expect(socket.health().degraded).toBeUndefined();
    expect(log.lines).toContain("info slack: Socket Mode is connected again");
  });

  test("failed reconnects keep backing off up to the cap; the waits carry jitter", async () => {
    const { fake, gate } = await connected({ random: () => 1 });
    fake.failNext("apps.connections.open", { status: 503 }, 8);
    fake.requestReconnect();
    await gate.waitForSleeps(1);
    for (let n = 1; n <= 8; n++) {
      gate.release();
      await gate.waitForSleeps(n + 1);
    }
    // 20 % jitter at its most: each wait is 80 % of its ceiling, and the ceiling stops at RETRY_MAX_MS.
    expect(gate.waits.slice(1)).toEqual([1, 2, 4, 8, 16, 32, 60, 60].map((s) => s * 800));
    expect(Math.max(...gate.waits)).toBe(RETRY_MAX_MS * 0.8);
    gate.release();
    await fake.waitForHello(2);
  });

  test("connections that close soon after opening are reopened after growing waits; a lasting one resets them", async () => {
    const clock = { t: 0 };
    const { fake, gate, nextEvent } = await connected({ now: () => clock.t });
    for (let n = 1; n <= 3; n++) {
      fake.requestReconnect();
      await gate.waitForSleeps(n);
      gate.release();
      await fake.waitForHello(n + 1);
    }
    expect(gate.waits).toEqual([RECONNECT_MS, RECONNECT_MS * 2, RECONNECT_MS * 4]);
    // An event after the hello: by the time it is handed on, the loop has taken the new connection in.
    const handed = nextEvent();
    await (await fake.sendEvent(fake.message({ user: "U0OWNER001", text: "still here" }))).acked;
    await handed;
    clock.t += 60_000;
    fake.requestReconnect();
    await gate.waitForSleeps(4);
    expect(gate.waits[3]).toBe(RECONNECT_MS);
  });

  test("a frame over the cap is dropped unparsed; the connection stays and the next frame is handed on", async () => {
    const { fake, socket, log, events, nextEvent } = await connected({ maxFrameChars: 4000 });
    void fake.sendEvent(fake.message({ user: "U0OWNER001", text: "x".repeat(5000) }));
    const handed = nextEvent();
    await (await fake.sendEvent(fake.message({ user: "U0OWNER001", text: "small" }))).acked;
    await handed;
    expect(events).toHaveLength(1);
    expect((events[0] as { text: string }).text).toBe("small");
    expect(
      log.lines.some((l) => /^warn slack: dropped a Socket Mode frame of \d+ characters, over the 4000 limit/.test(l)),
    ).toBe(true);
    expect(socket.health().connected).toBe(true);
  });

  test("an app-level token revoked while running is reported as such, and the loop keeps trying", async () => {
    const { fake, gate, socket } = await connected();
    fake.failNext("apps.connections.open", { error: "token_revoked" });
    fake.requestReconnect();
    await gate.waitForSleeps(1);
    gate.release();
    await gate.waitForSleeps(2);
    expect(socket.health().degraded).toStartWith("Slack refused the app-level token (token_revoked)");
    gate.release();
    await fake.waitForHello(2);
  });

  test("Slack unreachable at a reconnect is a failed attempt, never a crash of the process", async () => {
    const { fake, gate, socket, log } = await connected();
    await fake.close();
    await gate.waitForSleeps(1);
    gate.release();
    await gate.waitForSleeps(2);
    gate.release();
    await gate.waitForSleeps(3);
    expect(socket.health().connected).toBe(false);
    const warnings = log.lines.filter((l) => l.startsWith("warn slack: Socket Mode could not connect"));
    expect(warnings.length).toBe(2);
    expect(log.lines.join("\n")).not.toContain(fake.appToken);
    await socket.stop();
  });
});
