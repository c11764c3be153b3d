import { describe, expect, test } from "bun:test";
import { createBotApi, TelegramApiError } from "../../../src/channels/telegram/bot-api.ts";
import {
  CONFLICT_MEMORY_MS,
  CONFLICT_SENTENCE,
  createPoller,
  RETRY_MAX_MS,
  RETRY_OTHER_MS,
  RETRY_TRANSIENT_MAX_MS,
  RETRY_TRANSIENT_MS,
} from "../../../src/channels/telegram/poller.ts";
import { startFakeTelegram, textMessage } from "../../fake/telegram-bot-api.ts";
import { cleanupAfterEach } from "../../fixture/cleanup.ts";
import { gatedSleep, recordingLog } from "./_support.ts";

const defer = cleanupAfterEach();
const OWNER = 1001;

async function setup(
  options: {
    token?: string;
    saved?: number;
    onUpdate?: (update: unknown) => void;
    fake?: Awaited<ReturnType<typeof startFakeTelegram>>;
  } = {},
) {
  const fake = options.fake ?? (await startFakeTelegram());
  if (!options.fake) defer(() => fake.close());
  const api = createBotApi({ baseUrl: fake.baseUrl, token: options.token ?? fake.token });
  const log = recordingLog();
  const gate = gatedSleep();
  let now = 1_000_000;
  const updates: any[] = [];
  const saved: number[] = options.saved !== undefined ? [options.saved] : [];
  const poller = createPoller({
    api,
    log,
    now: () => now,
    sleep: gate.sleep,
    // The backoff's ceiling, exactly: the jitter is net/backoff.ts's to test.
    random: () => 0,
    onUpdate: (update) => {
      options.onUpdate?.(update);
      updates.push(update);
    },
    cursor: { load: () => saved.at(-1), save: (offset) => void saved.push(offset) },
  });
  defer(() => poller.stop());
  return { fake, poller, log, gate, updates, saved, advance: (ms: number) => (now += ms) };
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
  test("reads the startup backlog, long-polls 50 s for messages and taps, and saves the offset after each batch", async () => {
    const { fake, poller, updates, saved } = await setup();
    const backlog = fake.pushUpdate(
      textMessage({ chatId: OWNER, fromId: OWNER, text: "sent while down 1" }),
      textMessage({ chatId: OWNER, fromId: OWNER, text: "sent while down 2" }),
    );
    const held = nextLongPoll(fake);
    await poller.start();
    const [first] = fake.callsOf("getUpdates");
    // Nothing saved yet: everything Telegram kept is read, nothing is dropped.
    expect(first!.params).toEqual({ timeout: 0, allowed_updates: ["message", "callback_query"] });
    expect(updates).toEqual(backlog);
    expect((await held).params).toEqual({
      offset: backlog[1]!.update_id + 1,
      timeout: 50,
      allowed_updates: ["message", "callback_query"],
    });
    expect(saved).toEqual([backlog[1]!.update_id + 1]);

    const again = nextPoll(fake);
    const [fresh] = fake.pushUpdate(textMessage({ chatId: OWNER, fromId: OWNER, text: "hello" }));
    expect((await again).params.offset).toBe(fresh!.update_id + 1);
    expect(updates).toEqual([...backlog, fresh]);
    expect(saved.at(-1)).toBe(fresh!.update_id + 1);
    expect(poller.health()).toMatchObject({ connected: true });
    expect(poller.health().degraded).toBeUndefined();
  });

  test("after a restart it goes on from the saved offset", async () => {
    const fake = await startFakeTelegram();
    defer(() => fake.close());
    const [old, next] = fake.pushUpdate(
      textMessage({ chatId: OWNER, fromId: OWNER, text: "stored before the restart" }),
      textMessage({ chatId: OWNER, fromId: OWNER, text: "sent while fermix was down" }),
    );
    const { poller, updates } = await setup({ fake, saved: old!.update_id + 1 });
    await poller.start();
    expect(fake.callsOf("getUpdates")[0]!.params.offset).toBe(old!.update_id + 1);
    expect(updates).toEqual([next]);
  });

  test("an update that could not be stored is read again: the offset stays before it", async () => {
    let refuse = true;
    const { fake, poller, gate, saved, updates } = await setup({
      onUpdate: (update) => {
        if (refuse && (update as { message?: { text?: string } }).message?.text === "second") {
          refuse = false;
          throw new Error("memory.db is locked");
        }
      },
    });
    const [a, b] = fake.pushUpdate(
      textMessage({ chatId: OWNER, fromId: OWNER, text: "first" }),
      textMessage({ chatId: OWNER, fromId: OWNER, text: "second" }),
    );
    await poller.start();
    // The first was stored, so Telegram may forget it; the second comes back on the next poll.
    expect(saved).toEqual([a!.update_id + 1]);
    const retried = nextPoll(fake);
    gate.release();
    expect((await retried).params.offset).toBe(a!.update_id + 1);
    await fake.waitForCall("getUpdates", (c) => c.params.offset === b!.update_id + 1);
    expect(updates.map((u: { update_id: number }) => u.update_id)).toEqual([a!.update_id, b!.update_id]);
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
    // The first poll (no hold) gets through, then the long poll begins.
    expect((await probe).params.timeout).toBe(0);
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
    // Every retry loop backs off: doubling from RETRY_OTHER_MS, capped.
    expect(gate.waits).toEqual([
      RETRY_OTHER_MS,
      2 * RETRY_OTHER_MS,
      4 * RETRY_OTHER_MS,
      8 * RETRY_OTHER_MS,
      RETRY_MAX_MS,
    ]);
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

  test("a Bot API that resets every connection is polled less and less often, up to the cap", async () => {
    const { fake, poller, gate } = await setup();
    fake.failNext("getUpdates", { cut: true }, 9);
    await poller.start();
    for (let n = 1; n < 9; n++) {
      await gate.waitForSleeps(n);
      gate.release();
    }
    await gate.waitForSleeps(9);
    expect(gate.waits.slice(0, 8)).toEqual([250, 500, 1000, 2000, 4000, 8000, 16000, RETRY_TRANSIENT_MAX_MS]);
    expect(new Set(gate.waits.slice(7))).toEqual(new Set([RETRY_TRANSIENT_MAX_MS]));
    expect(RETRY_TRANSIENT_MS).toBe(250);
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
