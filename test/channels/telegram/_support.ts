/** Test helpers for the Telegram adapter's units: a recording log and a sleep the test releases. */

export type RecordingLog = {
  info(msg: string): void;
  warn(msg: string): void;
  error(msg: string): void;
  lines: string[];
};

export function recordingLog(): RecordingLog {
  const lines: string[] = [];
  return {
    lines,
    info: (msg) => lines.push(`info ${msg}`),
    warn: (msg) => lines.push(`warn ${msg}`),
    error: (msg) => lines.push(`error ${msg}`),
  };
}

/**
 * The poller's backoff waits, recorded and held until the test releases them: the test sees how long the poller
 * meant to wait and decides when it is over, so nothing waits on a clock.
 */
export function gatedSleep() {
  const waits: number[] = [];
  const held: Array<() => void> = [];
  const watchers: Array<{ n: number; resolve: () => void }> = [];
  return {
    waits,
    sleep(ms: number, signal: AbortSignal): Promise<void> {
      return new Promise<void>((resolve) => {
        waits.push(ms);
        held.push(resolve);
        signal.addEventListener("abort", () => resolve(), { once: true });
        for (const w of [...watchers]) {
          if (waits.length >= w.n) {
            watchers.splice(watchers.indexOf(w), 1);
            w.resolve();
          }
        }
      });
    },
    /** Resolves once the poller has begun its n-th wait. */
    waitForSleeps(n: number): Promise<void> {
      if (waits.length >= n) return Promise.resolve();
      return new Promise((resolve) => watchers.push({ n, resolve }));
    },
    /** Ends every wait begun so far. */
    release(): void {
      for (const resolve of held.splice(0)) resolve();
    },
  };
}
