// Every retry loop of the daemon waits by this one rule (issue 26): capped exponential growth with jitter, reset on
// success, so an outage is retried at a falling rate and many clients that failed together do not come back in
// step. A peer that says how long to wait (a 429's retry_after) is obeyed instead.

export type BackoffPolicy = {
  /** The first wait after a failure. */
  initialMs: number;
  /** No wait is longer than this. */
  maxMs: number;
  /** Growth per consecutive failure (default 2). */
  factor?: number;
  /** Share of each wait drawn at random, 0 to 1 (default 0.2): a wait of W is between W·(1−j) and W. */
  jitter?: number;
};

export interface Backoff {
  /** The wait before the next try, after one more failure in a row. */
  next(): number;
  /** A success: the next failure waits `initialMs` again. */
  reset(): void;
  /** Failures in a row since the last success. */
  readonly failures: number;
}

export function createBackoff(policy: BackoffPolicy, random: () => number = Math.random): Backoff {
  const factor = policy.factor ?? 2;
  const jitter = Math.min(1, Math.max(0, policy.jitter ?? 0.2));
  let failures = 0;
  return {
    next() {
      const ceiling = Math.min(policy.maxMs, policy.initialMs * factor ** failures);
      failures += 1;
      return Math.round(ceiling * (1 - jitter * random()));
    },
    reset() {
      failures = 0;
    },
    get failures() {
      return failures;
    },
  };
}
