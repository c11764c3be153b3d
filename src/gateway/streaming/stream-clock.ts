import type { StreamTrace } from "./stream-trace.ts";

/** The timers a streaming reply uses; tests hand in a manual one so no test waits on a real second. */
export type StreamClock = {
  now(): number;
  setTimeout(fn: () => void, ms: number): unknown;
  clearTimeout(handle: unknown): void;
  sleep(ms: number): Promise<void>;
};

export const realClock: StreamClock = {
  now: () => Date.now(),
  setTimeout: (fn, ms) => setTimeout(fn, ms),
  clearTimeout: (handle) => clearTimeout(handle as ReturnType<typeof setTimeout>),
  sleep: (ms) => new Promise((resolve) => setTimeout(resolve, ms)),
};

export type StreamLog = { warn(msg: string): void };

/** What a streaming reply needs besides its adapter and chat. */
export type StreamDeps = {
  clock: StreamClock;
  log: StreamLog;
  /** The reply's `channel_stream` trace lines (a no-op when the turn is not traced). */
  trace: StreamTrace;
};
