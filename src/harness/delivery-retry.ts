import { type BackoffPolicy, createBackoff } from "../net/backoff.ts";
import type { HarnessStore } from "./harness-store-contract.ts";
import { type DeliveryAttempt, HARNESS_DEFAULTS, type HarnessRun } from "./harness-types.ts";

/** One try at delivering a result: its outcome, or a throw (counted as a failed attempt). */
export type AttemptDelivery = (run: HarnessRun) => Promise<{ status: DeliveryAttempt["status"]; error?: string }>;

/** Waits `ms`, or less once `signal` aborts (a stopping daemon must not wait out a back-off). */
export type Sleep = (ms: number, signal: AbortSignal) => Promise<void>;

export type DeliveryRetryDeps = {
  store: HarnessStore;
  attempt: AttemptDelivery;
  now: () => number;
  log: { warn(msg: string): void };
  sleep?: Sleep;
  /** Tries in all, across daemon restarts (default RESULT_DELIVERY_ATTEMPTS); a function is read at each failure. */
  attempts?: number | (() => number);
  /** How long after its run ended a result may still be tried (default a day); a function is read at each failure. */
  maxAgeMs?: number | (() => number);
  backoff?: BackoffPolicy;
  random?: () => number;
};

export type DeliveryRetry = {
  /** Delivers `run`'s result, trying again with back-off; resolves once it is settled or the retrier stops. */
  deliver(run: HarnessRun): Promise<void>;
  /** Picks up the deliveries a previous daemon had planned but not finished. */
  resume(): void;
  /** Resolves once `id`'s delivery is settled (or was never started here). */
  settled(id: string): Promise<void>;
  /** Ends the waits; an unfinished delivery stays planned in memory.db for the next daemon. */
  stop(): Promise<void>;
};

/**
 * Twenty tries over about an hour and a quarter (5 s doubling, capped at 5 min; [fermix_core.harness]
 * delivery_max_attempts): enough to ride out a platform's outage or a channel that is still starting, bounded so a
 * chat that is gone ends as a recorded failure.
 */
export const RESULT_DELIVERY_ATTEMPTS = HARNESS_DEFAULTS.deliveryMaxAttempts;
const RESULT_DELIVERY_MAX_AGE_MS = HARNESS_DEFAULTS.deliveryMaxAgeHours * 3_600_000;
export const RESULT_DELIVERY_BACKOFF: BackoffPolicy = { initialMs: 5_000, maxMs: 5 * 60_000 };

/**
 * A finished run's result is never lost silently (issue 27): each attempt is recorded on the run, the next one is
 * planned in memory.db before its wait begins, and the last failure is stored on the run and logged.
 */
export function createDeliveryRetry(deps: DeliveryRetryDeps): DeliveryRetry {
  const { store, now, log } = deps;
  const given = deps.attempts ?? RESULT_DELIVERY_ATTEMPTS;
  const attemptsNow = typeof given === "function" ? given : () => given;
  const age = deps.maxAgeMs ?? RESULT_DELIVERY_MAX_AGE_MS;
  const maxAgeNow = typeof age === "function" ? age : () => age;
  const policy = deps.backoff ?? RESULT_DELIVERY_BACKOFF;
  const sleep = deps.sleep ?? abortableSleep;
  const stopping = new AbortController();
  const inflight = new Map<string, Promise<void>>();

  const loop = async (run: HarnessRun, firstAt: number) => {
    const backoff = createBackoff(policy, deps.random);
    // Attempts a previous daemon made count toward the bound, and the waits keep growing from where they were.
    let tried = run.deliveryAttempts.length;
    for (let i = 0; i < tried; i++) backoff.next();
    if (firstAt > now()) await sleep(firstAt - now(), stopping.signal);
    while (!stopping.signal.aborted) {
      const outcome = await deps.attempt(run).catch((err: unknown) => ({
        status: "failed" as const,
        error: err instanceof Error ? err.message : String(err),
      }));
      tried++;
      store.deliveryAttempt(run.id, { at: now(), ...outcome });
      if (outcome.status !== "failed") {
        store.delivered(run.id, outcome.status, outcome.error);
        return;
      }
      const error = outcome.error ?? "the delivery failed";
      const attempts = attemptsNow();
      const tooOld = now() - (run.completedAt ?? run.startedAt) > maxAgeNow();
      if (tried >= attempts || tooOld) {
        const why = tooOld
          ? `gave up after ${tried} attempts: the result is too old to send`
          : `gave up after ${tried} attempts`;
        store.delivered(run.id, "failed", `${error} (${why})`);
        log.warn(`coding run ${run.id}: its result was not delivered after ${tried} attempts: ${error}`);
        return;
      }
      const wait = backoff.next();
      store.deliveryDue(run.id, now() + wait, error);
      log.warn(`coding run ${run.id}: delivery attempt ${tried} of ${attempts} failed, next in ${wait} ms: ${error}`);
      await sleep(wait, stopping.signal);
    }
  };

  const track = (run: HarnessRun, firstAt: number): Promise<void> => {
    const previous = inflight.get(run.id);
    if (previous) return previous;
    const done = loop(run, firstAt)
      .catch((err: unknown) => log.warn(`coding run ${run.id}: delivering its result broke: ${String(err)}`))
      .finally(() => inflight.delete(run.id));
    inflight.set(run.id, done);
    return done;
  };

  return {
    deliver(run) {
      // Planned before the first try, so a daemon killed mid-send still finds it and tries again.
      const at = now();
      store.deliveryDue(run.id, at);
      return track(run, at);
    },
    resume() {
      // Not before the first back-off step: the chat channels are still starting when the harness is.
      const earliest = now() + policy.initialMs;
      for (const run of store.dueDeliveries()) track(run, Math.max(run.deliveryRetryAt ?? 0, earliest));
    },
    settled: async (id) => {
      await inflight.get(id);
    },
    async stop() {
      stopping.abort();
      await Promise.all(inflight.values());
    },
  };
}

const abortableSleep: Sleep = (ms, signal) =>
  new Promise<void>((resolve) => {
    if (signal.aborted) return resolve();
    const done = () => {
      clearTimeout(timer);
      signal.removeEventListener("abort", done);
      resolve();
    };
    const timer = setTimeout(done, ms);
    signal.addEventListener("abort", done, { once: true });
  });
