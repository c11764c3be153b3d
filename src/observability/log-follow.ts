import { closeSync, fstatSync, openSync, readSync, statSync } from "node:fs";

/** A file the caller already opened and showed up to `offset` (the `end` of log-reader's tail functions). */
export type FollowStart = { path: string; fd: number; offset: number };

export type FollowOptions = {
  /**
   * The file to follow, asked again on every poll: a path that moves on (the next day's trace file) is
   * followed too. Undefined while there is nothing to follow yet.
   */
  locate: () => string | undefined;
  /** Where to go on from; without it the first file `locate` finds is read from its start. Its fd is closed here. */
  start?: FollowStart;
  /** Complete lines, without their newline, in file order; awaited before reading on. */
  onLines: (lines: string[]) => void | Promise<void>;
  signal: AbortSignal;
  pollMs?: number;
};

type Open = { path: string; fd: number; dev: number; ino: number; offset: number; carry: Buffer };

const CHUNK = 64 * 1024;
const EMPTY = Buffer.alloc(0);

/**
 * `tail -F`: prints what is appended, and when the file is replaced — log.ts renames `fermix.log` to
 * `fermix.log.1` and the next write creates a new `fermix.log` — reads the old file to its end, then the new
 * one from its start. Resolves once `signal` aborts.
 *
 * A poll (every 250 ms) rather than fs.watch: inotify watches an inode, so after a rename it reports on the
 * old file and the new path needs a fresh watch set up in a window where lines can slip by; macOS and
 * Linux differ in which events a rename yields; and a watch on a path that does not exist yet fails. A stat
 * four times a second costs nothing and handles all of these the same way. The old file stays open, so
 * what was written to it between the last read and the rename is still read.
 */
export async function followFile(opts: FollowOptions): Promise<void> {
  const pollMs = opts.pollMs ?? 250;
  const state: { current?: Open } = {
    current: opts.start && track(opts.start.path, opts.start.fd, opts.start.offset),
  };
  try {
    while (!opts.signal.aborted) {
      await poll(state, opts);
      await pause(pollMs, opts.signal);
    }
  } finally {
    if (state.current) closeSync(state.current.fd);
  }
}

/** One look: drain the open file, and move to the file `locate` names if that is another one now. */
async function poll(state: { current?: Open }, opts: FollowOptions): Promise<void> {
  // Stat the path before draining the open file: if it was renamed before this stat, every line written to
  // it went in before the rename, so the drain below gets them all.
  const path = opts.locate();
  const now = path === undefined ? undefined : identity(path);
  const old = state.current;
  if (old) {
    await drain(old, opts);
    const replaced = now && (path !== old.path || now.ino !== old.ino || now.dev !== old.dev);
    if (!replaced) return;
    state.current = undefined;
    closeSync(old.fd);
    // The old file gets no more lines (writers append by path), so a last line without its newline is whole.
    if (old.carry.length) await opts.onLines([old.carry.toString("utf8")]);
  }
  if (path === undefined || now === undefined) return;
  state.current = openAtStart(path);
  if (state.current) await drain(state.current, opts);
}

/** Reads from the offset to the current end, handing out complete lines and keeping a partial one. */
async function drain(file: Open, opts: FollowOptions): Promise<void> {
  const size = fstatSync(file.fd).size;
  // Shorter than what was read: truncated in place (copytruncate-style rotation); start over.
  if (size < file.offset) {
    file.offset = 0;
    file.carry = EMPTY;
  }
  while (file.offset < size && !opts.signal.aborted) {
    const buf = Buffer.allocUnsafe(Math.min(CHUNK, size - file.offset));
    const got = readSync(file.fd, buf, 0, buf.length, file.offset);
    if (got === 0) break;
    file.offset += got;
    const data = file.carry.length ? Buffer.concat([file.carry, buf.subarray(0, got)]) : buf.subarray(0, got);
    const lines: string[] = [];
    let from = 0;
    for (let nl = data.indexOf(0x0a); nl >= 0; nl = data.indexOf(0x0a, from)) {
      lines.push(data.toString("utf8", from, nl));
      from = nl + 1;
    }
    file.carry = Buffer.from(data.subarray(from));
    if (lines.length) await opts.onLines(lines);
  }
}

function track(path: string, fd: number, offset: number): Open {
  const { dev, ino } = fstatSync(fd);
  return { path, fd, dev, ino, offset, carry: EMPTY };
}

function openAtStart(path: string): Open | undefined {
  let fd: number;
  try {
    fd = openSync(path, "r");
  } catch {
    // Gone between the stat and the open (rotated again): the next poll finds its successor.
    return undefined;
  }
  return track(path, fd, 0);
}

function identity(path: string): { dev: number; ino: number } | undefined {
  try {
    const { dev, ino } = statSync(path);
    return { dev, ino };
  } catch {
    return undefined;
  }
}

function pause(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    if (signal.aborted) return resolve();
    const done = () => {
      clearTimeout(timer);
      signal.removeEventListener("abort", done);
      resolve();
    };
    const timer = setTimeout(done, ms);
    signal.addEventListener("abort", done, { once: true });
  });
}

/**
 * An AbortSignal that SIGINT (Ctrl-C) or SIGTERM fires, so ending a follow is its normal end (exit 0)
 * rather than a death by signal. `dispose` removes the handlers.
 */
export function abortOnSignals(signals: readonly NodeJS.Signals[] = ["SIGINT", "SIGTERM"]): {
  signal: AbortSignal;
  dispose(): void;
} {
  const controller = new AbortController();
  const abort = () => controller.abort();
  for (const name of signals) process.on(name, abort);
  return {
    signal: controller.signal,
    dispose: () => {
      for (const name of signals) process.off(name, abort);
    },
  };
}
