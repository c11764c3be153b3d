import { appendFileSync, mkdirSync, renameSync, rmSync, statSync, writeSync } from "node:fs";
import { dirname } from "node:path";
import type { Env } from "../config/env.ts";
import { writeStderr as writeStderrAsync } from "../runtime/stdio.ts";
import type { LogLevel } from "./log-level.ts";
import { redact } from "./redact.ts";
import type { StderrLine, StderrStyle } from "./stderr-sink.ts";

export type Log = {
  debug(...args: unknown[]): void;
  info(...args: unknown[]): void;
  warn(...args: unknown[]): void;
  error(...args: unknown[]): void;
  withTag(tag: string): Log;
};

const RANK: Record<LogLevel, number> = { debug: 0, info: 1, warn: 2, error: 3 };

/** The earlier implementation's compiled defaults: rotate past 10 MB, keep 5 old files. */
export const LOG_ROTATE_BYTES = 10 * 1024 * 1024;
export const LOG_KEEP = 5;

/**
 * The program's logger: one line per event, `<iso time> <LEVEL> [tag] message`, to the log file and,
 * for the daemon, stderr. Every sink receives text that already passed the redactor (every secret the process has
 * registered, config/secret-registry.ts, and the vendor key shapes). The file sink is
 * hand-written (importing consola costs ~7 ms of start-up, which the in-process ask would pay); the stderr
 * sink is consola, imported only when one is wanted — see stderr-sink.ts for what it prints where.
 */
export function createLog(opts: {
  file?: string;
  /**
   * Also to stderr (the daemon on a terminal or under journald). Its style comes from `env` and fd 2
   * unless `style` gives it; `write` replaces the process's stderr (tests).
   */
  stderr?: boolean | { env?: Env; style?: StderrStyle; write?: (text: string) => void };
  level?: LogLevel;
  now?: () => Date;
  /** Rotation: `fermix.log` → `fermix.log.1` … `.<keep>` once it would pass `maxBytes`. */
  rotate?: { maxBytes: number; keep: number };
}): Log & { stderrReady: Promise<void> } {
  const min = RANK[opts.level ?? "info"];
  const rotation = opts.rotate ?? { maxBytes: LOG_ROTATE_BYTES, keep: LOG_KEEP };
  // The log directory is made on the first line written, so a command that logs nothing writes nothing.
  let dirReady = false;
  // What this process believes the file holds; another process (the daemon beside a CLI ask) may add to it,
  // so the real size is read again before rotating.
  let size: number | undefined;
  const stderr = opts.stderr ? stderrSink(opts.stderr === true ? {} : opts.stderr) : undefined;
  const write = (level: LogLevel, tag: string | undefined, args: unknown[]) => {
    if (RANK[level] < min) return;
    const text = args.map((a) => (typeof a === "string" ? a : render(a))).join(" ");
    const date = opts.now?.() ?? new Date();
    const stamp = date.toISOString();
    const line = `${redact(`${stamp} ${level.toUpperCase()}${tag ? ` [${tag}]` : ""} ${text}`)}\n`;
    if (opts.file) {
      if (!dirReady) {
        mkdirSync(dirname(opts.file), { recursive: true, mode: 0o700 });
        dirReady = true;
      }
      const bytes = Buffer.byteLength(line);
      size ??= fileSize(opts.file);
      if (size + bytes > rotation.maxBytes) {
        size = fileSize(opts.file);
        if (size + bytes > rotation.maxBytes && size > 0) {
          rotateFiles(opts.file, rotation.keep);
          size = 0;
        }
      }
      appendFileSync(opts.file, line, { mode: 0o600 });
      size += bytes;
    }
    if (stderr) {
      // Redacted before consola sees it: the tag and text separately, as the reporter lays them out itself.
      stderr.send({ level, tag: tag && redact(tag), text: redact(text), date });
    }
  };
  const make = (tag?: string): Log => ({
    debug: (...a) => write("debug", tag, a),
    info: (...a) => write("info", tag, a),
    warn: (...a) => write("warn", tag, a),
    error: (...a) => write("error", tag, a),
    withTag: (t) => make(tag ? `${tag}:${t}` : t),
  });
  return Object.assign(make(), { stderrReady: stderr?.ready ?? Promise.resolve() });
}

/**
 * The stderr sink, loading consola in the background: lines logged before it is loaded wait in order and go
 * out first. Should the process exit before then, they are written plainly on the way out rather than lost.
 */
function stderrSink(o: { env?: Env; style?: StderrStyle; write?: (text: string) => void }) {
  const write = o.write ?? writeStderr;
  let send: ((line: StderrLine) => void) | undefined;
  let pending: StderrLine[] = [];
  const onExit = () => {
    for (const l of pending)
      write(`${l.date.toISOString()} ${l.level.toUpperCase()}${l.tag ? ` [${l.tag}]` : ""} ${l.text}\n`);
    pending = [];
  };
  process.once("exit", onExit);
  const ready = import("./stderr-sink.ts").then(({ createStderrSink, stderrStyle }) => {
    send = createStderrSink(o.style ?? stderrStyle(o.env ?? {}), write);
    process.off("exit", onExit);
    for (const l of pending) send(l);
    pending = [];
  });
  // A sink that could not load still writes its lines, plainly, when the process exits.
  ready.catch(() => {});
  return { ready, send: (line: StderrLine) => (send ? send(line) : void pending.push(line)) };
}

/**
 * Synchronously, as node writes stderr to files, terminals and pipes on Linux: an asynchronous write still in flight
 * when the process exits is dropped, and the last line before an exit ("stopped", a fatal error) is the one
 * most wanted. A descriptor that would block (a full non-blocking pipe) gets the asynchronous write instead.
 */
function writeStderr(text: string): void {
  const bytes = Buffer.from(text);
  let done = 0;
  try {
    while (done < bytes.length) done += writeSync(2, bytes, done);
  } catch {
    void writeStderrAsync(bytes.subarray(done)).catch(() => {});
  }
}

function render(value: unknown): string {
  if (value instanceof Error) return value.stack ?? value.message;
  try {
    return JSON.stringify(value);
  } catch {
    return String(value);
  }
}

function fileSize(file: string): number {
  try {
    return statSync(file).size;
  } catch {
    return 0;
  }
}

/** `keep` ≥ 1: `log.<keep>` is dropped, each `log.<n>` becomes `log.<n+1>`, and `log` becomes `log.1` (renames are atomic). */
function rotateFiles(file: string, keep: number): void {
  rmSync(`${file}.${keep}`, { force: true });
  for (let n = keep - 1; n >= 1; n--) {
    try {
      renameSync(`${file}.${n}`, `${file}.${n + 1}`);
    } catch {}
  }
  try {
    renameSync(file, `${file}.1`);
  } catch {}
}
