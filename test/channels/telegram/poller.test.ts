import { describe, expect, test } from "bun:test";
import { createBotApi, TelegramApiError } from "../../../src/channels/telegram/bot-api.ts";
import {
  CONFLICT_MEMORY_MS,
  CONFLICT_SENTENCE,
  createPoller,
  RETRY_OTHER_MS,
  RETRY_TRANSIENT_MS,
} from "../../../src/channels/telegram/poller.ts";
import { startFakeTelegram, textMessage } from "../../fake/telegram-bot-api.ts";
import { cleanupAfterEach } from "../../fixture/cleanup.ts";
import { gatedSleep, recordingLog } from "./_support.ts";

const defer = cleanupAfterEach();
const OWNER = 1001;

async function setup(options: { token?: string } = {}) {
  const fake = await startFakeTelegram();
  defer(() => fake.close());
  const api = createBotApi({ baseUrl: fake.baseUrl, token: options.token ?? fake.token });
  const log = recordingLog();
  const gate = gatedSleep();
  let now = 1_000_000;
  const updates: any[] = [];
  const poller = createPoller({
    api,
    log,
    now: () => now,
    sleep: gate.sleep,
    onUpdate: (update) => updates.push(update),
  });
  defer(() => poller.stop());
  return { fake, poller, log, gate, updates, advance: (ms: number) => (now += ms) };
}

/** The next getUpdates to arrive after this call (create it before whatever causes it). */
function nextPoll(fake: Awaited<ReturnType<typeof startFakeTelegram>>) {
  const mark = fake.calls.length;
  return fake.waitForCall("getUpdates", (c) => fake.calls.indexOf(c) >= mark);
}

/** The next long poll (timeout 50) to arrive: the probe before it does not count. */
function nextLongPoll(fake: Awaited<ReturnType<typeof startFakeTelegram>>) {
  const mark = fake.calls.length;
  return fake.waitForCall("getUpdates", (c) => c.params.timeout === 50 && fake.calls.indexOf(c) >= mark);
}

describe("the Telegram poller", () => {
  test("skips the startup backlog, long-polls 50 s for messages and taps, keeps the offset in memory", async () => {
    const { fake, poller, updates, log } = await setup();
    const backlog = fake.pushUpdate(
      textMessage({ chatId: OWNER, fromId: OWNER, text: "sent while down 1" }),
      textMessage({ chatId: OWNER, fromId: OWNER, text: "sent while down 2" }),
    );
    const held = nextLongPoll(fake);
    await poller.start();
    const [probe] = fake.callsOf("getUpdates");
    expect(probe!.params).toEqual({ offset: -1, timeout: 0, allowed_updates: ["message", "callback_query"] });
    expect((await held).params).toEqual({
      offset: backlog[1]!.update_id + 1,
      timeout: 50,
      allowed_updates: ["message", "callback_query"],
    });
    expect(log.lines).toContain("info telegram: skipped the updates queued while fermix was not polling");

    const again = nextPoll(fake);
    const [fresh] = fake.pushUpdate(textMessage({ chatId: OWNER, fromId: OWNER, text: "hello" }));
    expect((await again).params.offset).toBe(fresh!.update_id + 1);
    expect(updates).toEqual([fresh]);
    expect(poller.health()).toMatchObject({ connected: true });
    expect(poller.health().degraded).toBeUndefined();
  });

  test("a 409 (another program polling the token) is reported with its sentence and backs off, logged once", async () => {
    const { fake, poller, gate, log, advance } = await setup();
    const held = nextLongPoll(fake);
    await poller.start();
    await held;
    // A rival getUpdates ends ours with 409, as Telegram does.
    const rival = await fetch(`${fake.baseUrl}/bot${fake.token}/getUpdates`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ timeout: 0 }),
    });
    expect(rival.status).toBe(200);
    await gate.waitForSleeps(1);
    expect((await held).answer).toEqual({
      ok: false,
      error_code: 409,
      description: "Conflict: terminated by other getUpdates request; make sure that only one bot instance is running",
    });
    expect(poller.health()).toMatchObject({ connected: false, degraded: CONFLICT_SENTENCE });
    expect(CONFLICT_SENTENCE).toStartWith("another program is polling this bot token");

    // It keeps happening: the wait doubles, the log does not repeat itself.
    fake.failNext("getUpdates", { status: 409 }, 2);
    gate.release();
    await gate.waitForSleeps(2);
    gate.release();
    await gate.waitForSleeps(3);
    expect(gate.waits).toEqual([RETRY_OTHER_MS, 2 * RETRY_OTHER_MS, 4 * RETRY_OTHER_MS]);
    expect(log.lines.filter((l) => l.includes("another program is polling this bot token"))).toHaveLength(1);

    // The rival is gone: polling works, and the report clears once no 409 came for a while.
    const back = nextPoll(fake);
    gate.release();
    await back;
    // A held poll has not answered yet; an update ends it with a success.
    const after = nextPoll(fake);
    fake.pushUpdate(textMessage({ chatId: OWNER, fromId: OWNER, text: "hi" }));
    await after;
    expect(poller.health().degraded).toBe(CONFLICT_SENTENCE);
    advance(CONFLICT_MEMORY_MS + 1);
    expect(poller.health()).toMatchObject({ connected: true });
    expect(poller.health().degraded).toBeUndefined();
  });

  test("a 429 waits what retry_after says, then polls again", async () => {
    const { fake, poller, gate } = await setup();
    fake.failNext("getUpdates", { status: 429, retryAfter: 7 });
    await poller.start();
    await gate.waitForSleeps(1);
    expect(gate.waits).toEqual([7000]);
    expect(fake.callsOf("getUpdates")[0]!.answer).toEqual({
      ok: false,
      error_code: 429,
      description: "Too Many Requests: retry after 7",
      parameters: { retry_after: 7 },
    });
    const probe = nextPoll(fake);
    gate.release();
    // The backlog is still skipped once the probe gets through, then the long poll begins.
    expect((await probe).params.offset).toBe(-1);
    await fake.waitForCall("getUpdates", (c) => c.params.timeout === 50);
  });

  test("five failures in a row make it degraded (logged once); a good poll recovers", async () => {
    const { fake, poller, gate, log } = await setup();
    const held = nextLongPoll(fake);
    await poller.start();
    await held;
    fake.failNext("getUpdates", { status: 502, description: "Bad Gateway" }, 5);
    // The held poll ends with an update; the five polls after it fail.
    fake.pushUpdate(textMessage({ chatId: OWNER, fromId: OWNER, text: "wake" }));
    for (let n = 1; n <= 5; n++) {
      await gate.waitForSleeps(n);
      if (n < 5) {
        expect(poller.health().degraded).toBeUndefined();
        gate.release();
      }
    }
    expect(gate.waits).toEqual(Array(5).fill(RETRY_OTHER_MS));
    expect(poller.health()).toMatchObject({ connected: false });
    expect(poller.health().degraded).toBe(
      "getUpdates failed 5 times in a row (last: Telegram getUpdates failed: Bad Gateway); fermix keeps polling",
    );
    expect(log.lines.filter((l) => l.startsWith("error telegram: degraded"))).toHaveLength(1);
    const recovered = nextPoll(fake);
    gate.release();
    await recovered;
    // A held poll has not answered yet; an update ends it with a success.
    const after = nextPoll(fake);
    fake.pushUpdate(textMessage({ chatId: OWNER, fromId: OWNER, text: "again" }));
    await after;
    expect(poller.health().degraded).toBeUndefined();
    expect(poller.health().connected).toBe(true);
    expect(log.lines).toContain("info telegram: polling works again");
  });

  test("a connection dropped mid-answer is retried after 250 ms", async () => {
    const { fake, poller, gate } = await setup();
    fake.failNext("getUpdates", { cut: true });
    await poller.start();
    await gate.waitForSleeps(1);
    expect(gate.waits).toEqual([RETRY_TRANSIENT_MS]);
    gate.release();
    await fake.waitForCall("getUpdates", (c) => c.params.timeout === 50);
  });

  test("a token Telegram rejects fails start; nothing in the error holds the token", async () => {
    const wrong = "987654321:AAHwrongTokenWrongTokenWrongToken12345";
    const { poller } = await setup({ token: wrong });
    const err = await poller.start().then(
      () => undefined,
      (e) => e,
    );
    expect(TelegramApiError.is(err)).toBe(true);
    expect(err.data.status).toBe(401);
    expect(JSON.stringify({ message: err.message, data: err.data })).not.toContain(wrong);
  });

  test("stop ends a held long poll at once", async () => {
    const { fake, poller } = await setup();
    const held = nextLongPoll(fake);
    await poller.start();
    await held;
    const started = Date.now();
    await poller.stop();
    expect(Date.now() - started).toBeLessThan(5000);
  });
});
