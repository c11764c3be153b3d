import { appendFileSync, mkdirSync, renameSync, rmSync, statSync } from "node:fs";
import { dirname } from "node:path";
import { redact } from "./redact.ts";

export type LogLevel = "debug" | "info" | "warn" | "error";
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
 * for the daemon, stderr. Every sink receives text that already passed the redactor. (Hand-rolled
 * rather than consola: importing consola cost ~7 ms of start-up on the in-process ask path.)
 */
export function createLog(opts: {
  file?: string;
  stderr?: boolean;
  level?: LogLevel;
  secrets?: () => readonly string[];
  now?: () => Date;
  /** Rotation: `fermix.log` → `fermix.log.1` … `.<keep>` once it would pass `maxBytes`. */
  rotate?: { maxBytes: number; keep: number };
}): Log {
  const min = RANK[opts.level ?? "info"];
  const rotation = opts.rotate ?? { maxBytes: LOG_ROTATE_BYTES, keep: LOG_KEEP };
  // The log directory is made on the first line written, so a command that logs nothing writes nothing.
  let dirReady = false;
  // What this process believes the file holds; another process (the daemon beside a CLI ask) may add to it,
  // so the real size is read again before rotating.
  let size: number | undefined;
  const write = (level: LogLevel, tag: string | undefined, args: unknown[]) => {
    if (RANK[level] < min) return;
    const text = args.map((a) => (typeof a === "string" ? a : render(a))).join(" ");
    const stamp = (opts.now?.() ?? new Date()).toISOString();
    const line = `${redact(`${stamp} ${level.toUpperCase()}${tag ? ` [${tag}]` : ""} ${text}`, opts.secrets?.() ?? [])}\n`;
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
    if (opts.stderr) void Bun.write(Bun.stderr, line);
  };
  const make = (tag?: string): Log => ({
    debug: (...a) => write("debug", tag, a),
    info: (...a) => write("info", tag, a),
    warn: (...a) => write("warn", tag, a),
    error: (...a) => write("error", tag, a),
    withTag: (t) => make(tag ? `${tag}:${t}` : t),
  });
  return make();
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
