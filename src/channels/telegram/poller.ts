import type { ChannelHealth } from "../channel.ts";
import { type BotApi, TelegramApiError, TelegramUnreachable } from "./bot-api.ts";
import type { Poller } from "./poller-contract.ts";

/** Telegram holds a getUpdates this long when nothing arrives; the HTTP deadline leaves room over it. */
export const POLL_TIMEOUT_S = 50;
export const POLL_DEADLINE_MS = 60_000;
/** Messages and button taps only: nothing else is read, so nothing else is asked for. */
export const ALLOWED_UPDATES = ["message", "callback_query"] as const;

/** Backoffs: a dropped connection is retried almost at once, anything else after a pause. */
export const RETRY_TRANSIENT_MS = 250;
export const RETRY_OTHER_MS = 5000;
/** A 409 or a rejected token doubles from RETRY_OTHER_MS up to this: retrying fast changes nothing. */
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
  /** Each update, in order; a throw is logged and the next one goes on. */
  onUpdate(update: unknown): void;
  log: { info(msg: string): void; warn(msg: string): void; error(msg: string): void };
  now: () => number;
  /** Waits `ms` or until the signal aborts (tests pass one that records the wait). */
  sleep?: (ms: number, signal: AbortSignal) => Promise<void>;
};

/**
 * Telegram's long polling, the only transport: one probe with timeout 0 that drops the backlog (messages sent while
 * fermix was down are not answered hours later), then getUpdates with a 50 s hold, one after another. The offset
 * (highest update_id + 1) lives in memory only. Failures back off by kind — a 429 waits what Telegram says, a 409
 * (another program polling the same token) is reported and backs off — and five in a row make the channel degraded
 * until a poll succeeds again. Polling stops only with stop().
 */
export function createPoller(deps: PollerDeps): Poller {
  const sleep = deps.sleep ?? defaultSleep;
  const stopping = new AbortController();
  let offset: number | undefined;
  let probed = false;
  let loop: Promise<void> | undefined;
  let connected = false;
  let lastUpdateAt: number | undefined;
  let failures = 0;
  let lastError = "";
  let slowBackoffs = 0;
  let conflictAt: number | undefined;
  let degradedLoggedAt: number | undefined;

  /** The probe: offset -1 returns only the newest queued update and makes Telegram forget the ones before it. */
  async function probe(): Promise<void> {
    const updates = await deps.api.call<Array<{ update_id?: unknown }>>(
      "getUpdates",
      { offset: -1, timeout: 0, allowed_updates: ALLOWED_UPDATES },
      { signal: stopping.signal, timeoutMs: 15_000 },
    );
    const last = updates.at(-1)?.update_id;
    if (typeof last === "number") {
      offset = last + 1;
      deps.log.info("telegram: skipped the updates queued while fermix was not polling");
    }
    probed = true;
  }

  async function poll(): Promise<void> {
    const updates = await deps.api.call<unknown[]>(
      "getUpdates",
      { ...(offset !== undefined ? { offset } : {}), timeout: POLL_TIMEOUT_S, allowed_updates: ALLOWED_UPDATES },
      { signal: stopping.signal, timeoutMs: POLL_DEADLINE_MS },
    );
    succeeded();
    for (const update of Array.isArray(updates) ? updates : []) {
      const id = (update as { update_id?: unknown })?.update_id;
      if (typeof id === "number" && (offset === undefined || id >= offset)) offset = id + 1;
      try {
        deps.onUpdate(update);
      } catch (err) {
        deps.log.warn(
          `telegram: update ${String(id)} could not be handled: ${deps.api.redact(String((err as Error)?.message ?? err))}`,
        );
      }
    }
  }

  function succeeded(): void {
    if (failures >= DEGRADED_AFTER) deps.log.info("telegram: polling works again");
    failures = 0;
    slowBackoffs = 0;
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
      wait = slowBackoff();
    } else if (TelegramApiError.is(err) && err.data.status === 429) {
      const seconds = err.data.retryAfter;
      wait = seconds !== undefined ? Math.max(1, seconds) * 1000 : RETRY_OTHER_MS;
      deps.log.warn(`telegram: rate limited by Telegram; polling again in ${Math.round(wait / 1000)} s`);
    } else if (TelegramApiError.is(err) && (err.data.status === 401 || err.data.status === 404)) {
      wait = slowBackoff();
    } else if (TelegramUnreachable.is(err) && err.data.transient) {
      wait = RETRY_TRANSIENT_MS;
    } else {
      wait = RETRY_OTHER_MS;
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

  function slowBackoff(): number {
    slowBackoffs += 1;
    return Math.min(RETRY_OTHER_MS * 2 ** (slowBackoffs - 1), RETRY_MAX_MS);
  }

  function degradedSentence(): string {
    return `getUpdates failed ${failures} times in a row (last: ${lastError}); fermix keeps polling`;
  }

  async function run(): Promise<void> {
    while (!stopping.signal.aborted) {
      try {
        if (!probed) await probe();
        else await poll();
      } catch (err) {
        if (stopping.signal.aborted) return;
        await sleep(failed(err), stopping.signal);
      }
    }
  }

  return {
    async start(): Promise<void> {
      try {
        await probe();
        succeeded();
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
