import { describe, expect, test } from "bun:test";
import {
  createSocketMode,
  DEGRADED_AFTER,
  RECONNECT_MS,
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

async function connected() {
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
    now: () => Date.now(),
    onEvent: (event) => {
      events.push(event);
      waiting.shift()?.();
    },
    sleep: gate.sleep,
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
