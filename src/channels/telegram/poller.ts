import { createBackoff } from "../../net/backoff.ts";
import type { ChannelHealth } from "../channel.ts";
import { type BotApi, TelegramApiError, TelegramUnreachable } from "./bot-api.ts";
import type { Poller } from "./poller-contract.ts";

/** Telegram holds a getUpdates this long when nothing arrives; the HTTP deadline leaves room over it. */
export const POLL_TIMEOUT_S = 50;
export const POLL_DEADLINE_MS = 60_000;
/** Messages and button taps only: nothing else is read, so nothing else is asked for. */
export const ALLOWED_UPDATES = ["message", "callback_query"] as const;

/**
 * Backoffs (src/net/backoff.ts: doubling with jitter, reset by a poll that works): a dropped connection is retried
 * almost at once the first time, then less and less often up to RETRY_TRANSIENT_MAX_MS; anything else (a 409, a
 * rejected token, an answer over the size cap) starts at RETRY_OTHER_MS and grows to RETRY_MAX_MS.
 */
export const RETRY_TRANSIENT_MS = 250;
export const RETRY_TRANSIENT_MAX_MS = 30_000;
export const RETRY_OTHER_MS = 5000;
export const RETRY_MAX_MS = 60_000;
/** Consecutive failures before the channel reports itself degraded (shown by `fermix channels status` and doctor). */
export const DEGRADED_AFTER = 5;
/** How often a degraded state is logged again while it lasts. */
export const RELOG_MS = 15 * 60_000;
/** A 409 stays on the report this long after the last one: two pollers take turns, so it flaps otherwise. */
export const CONFLICT_MEMORY_MS = 2 * 60_000;

export const CONFLICT_SENTENCE =
  "another program is polling this bot token (Telegram answered 409 Conflict: terminated by other getUpdates request); stop the other copy — another fermix, a script, a webhook tool — or give this install its own bot from @BotFather";

export type PollerDeps = {
  api: BotApi;
  /**
   * Each update, in order; resolves once it is stored. Telegram is told the batch arrived (the next getUpdates'
   * offset) only after every update of it has. A throw is logged and the next one goes on.
   */
  onUpdate(update: unknown): Promise<void> | void;
  /** Where polling resumes after a restart: the saved offset (memory.db), saved again after each stored batch. */
  cursor?: { load(): number | undefined; save(offset: number): void };
  log: { info(msg: string): void; warn(msg: string): void; error(msg: string): void };
  now: () => number;
  /** The backoffs' jitter source (tests pass a constant). */
  random?: () => number;
  /** Waits `ms` or until the signal aborts (tests pass one that records the wait). */
  sleep?: (ms: number, signal: AbortSignal) => Promise<void>;
};

/**
 * Telegram's long polling, the only transport: a first getUpdates with timeout 0 from the saved offset (the backlog
 * queued while fermix was down is read, not dropped: the gateway answers what is recent and tells the sender about
 * what is old), then getUpdates with a 50 s hold, one after another. The offset (highest update_id + 1) advances
 * only past updates that were stored, and is saved (memory.db) after each batch, so a crash loses none and repeats
 * none. Failures back off by kind — a 429 waits what Telegram says, a 409 (another program polling the same token)
 * is reported — and five in a row make the channel degraded until a poll succeeds again. Polling stops only with
 * stop().
 */
export function createPoller(deps: PollerDeps): Poller {
  const sleep = deps.sleep ?? defaultSleep;
  const stopping = new AbortController();
  let offset: number | undefined = deps.cursor?.load();
  let first = true;
  let unstored: { id: number; tries: number } | undefined;
  let loop: Promise<void> | undefined;
  let connected = false;
  let lastUpdateAt: number | undefined;
  let failures = 0;
  let lastError = "";
  const transientBackoff = createBackoff({ initialMs: RETRY_TRANSIENT_MS, maxMs: RETRY_TRANSIENT_MAX_MS }, deps.random);
  const slowBackoff = createBackoff({ initialMs: RETRY_OTHER_MS, maxMs: RETRY_MAX_MS }, deps.random);
  let conflictAt: number | undefined;
  let degradedLoggedAt: number | undefined;

  async function poll(): Promise<void> {
    // The first request holds nothing (timeout 0): start() learns at once whether the token works.
    const hold = first ? 0 : POLL_TIMEOUT_S;
    const updates = await deps.api.call<unknown[]>(
      "getUpdates",
      { ...(offset !== undefined ? { offset } : {}), timeout: hold, allowed_updates: ALLOWED_UPDATES },
      { signal: stopping.signal, timeoutMs: first ? 15_000 : POLL_DEADLINE_MS },
    );
    first = false;
    succeeded();
    let next = offset;
    const advance = () => {
      if (next === offset || next === undefined) return;
      offset = next;
      deps.cursor?.save(next);
    };
    for (const update of Array.isArray(updates) ? updates : []) {
      const id = (update as { update_id?: unknown })?.update_id;
      try {
        await deps.onUpdate(update);
      } catch (err) {
        const why = deps.api.redact(String((err as Error)?.message ?? err));
        // Not stored (memory.db full or locked): Telegram keeps it until a later poll stores it. One that fails
        // three times is given up, said in the log, so it cannot hold the chat's later messages back for ever.
        if (typeof id !== "number" || (unstored?.id === id && ++unstored.tries >= 3)) {
          deps.log.error(`telegram: update ${String(id)} could not be stored and is skipped: ${why}`);
        } else {
          if (unstored?.id !== id) unstored = { id, tries: 1 };
          deps.log.warn(`telegram: update ${id} could not be stored; it is read again: ${why}`);
          advance();
          throw err;
        }
      }
      if (typeof id === "number" && (next === undefined || id >= next)) next = id + 1;
    }
    advance();
  }

  function succeeded(): void {
    if (failures >= DEGRADED_AFTER) deps.log.info("telegram: polling works again");
    failures = 0;
    transientBackoff.reset();
    slowBackoff.reset();
    connected = true;
    lastUpdateAt = deps.now();
    degradedLoggedAt = undefined;
    if (conflictAt !== undefined && deps.now() - conflictAt > CONFLICT_MEMORY_MS) conflictAt = undefined;
  }

  /** Counts the failure, logs what needs saying, and returns how long to wait before the next try. */
  function failed(err: unknown): number {
    failures += 1;
    connected = false;
    const message = deps.api.redact(String((err as Error)?.message ?? err));
    lastError = message;
    let wait: number;
    if (TelegramApiError.is(err) && err.data.status === 409) {
      if (conflictAt === undefined || deps.now() - conflictAt > CONFLICT_MEMORY_MS) {
        deps.log.error(`telegram: ${CONFLICT_SENTENCE}`);
      }
      conflictAt = deps.now();
      wait = slowBackoff.next();
    } else if (TelegramApiError.is(err) && err.data.status === 429) {
      const seconds = err.data.retryAfter;
      wait = seconds !== undefined ? Math.max(1, seconds) * 1000 : slowBackoff.next();
      deps.log.warn(`telegram: rate limited by Telegram; polling again in ${Math.round(wait / 1000)} s`);
    } else if (TelegramUnreachable.is(err) && err.data.transient) {
      wait = transientBackoff.next();
    } else {
      wait = slowBackoff.next();
    }
    if (failures >= DEGRADED_AFTER) {
      const now = deps.now();
      if (degradedLoggedAt === undefined || now - degradedLoggedAt >= RELOG_MS) {
        degradedLoggedAt = now;
        deps.log.error(`telegram: degraded — ${degradedSentence()}`);
      }
    }
    return wait;
  }

  function degradedSentence(): string {
    return `getUpdates failed ${failures} times in a row (last: ${lastError}); fermix keeps polling`;
  }

  async function run(): Promise<void> {
    while (!stopping.signal.aborted) {
      try {
        await poll();
      } catch (err) {
        if (stopping.signal.aborted) return;
        await sleep(failed(err), stopping.signal);
      }
    }
  }

  return {
    async start(): Promise<void> {
      try {
        await poll();
      } catch (err) {
        if (TelegramApiError.is(err) && (err.data.status === 401 || err.data.status === 404)) throw err;
        loop = (async () => {
          await sleep(failed(err), stopping.signal);
          await run();
        })();
        return;
      }
      loop = run();
    },

    async stop(): Promise<void> {
      stopping.abort(new Error("the telegram channel is stopping"));
      await loop?.catch(() => {});
    },

    health(): ChannelHealth {
      const conflict = conflictAt !== undefined && deps.now() - conflictAt <= CONFLICT_MEMORY_MS;
      const degraded = conflict ? CONFLICT_SENTENCE : failures >= DEGRADED_AFTER ? degradedSentence() : undefined;
      return {
        connected: connected && !conflict,
        ...(lastUpdateAt !== undefined ? { lastUpdateAt } : {}),
        ...(degraded ? { degraded } : {}),
      };
    },
  };
}

function defaultSleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    if (signal.aborted) return resolve();
    const timer = setTimeout(done, ms);
    function done() {
      clearTimeout(timer);
      signal.removeEventListener("abort", done);
      resolve();
    }
    signal.addEventListener("abort", done, { once: true });
  });
}
