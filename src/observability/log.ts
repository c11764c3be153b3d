import { appendFileSync, mkdirSync } from "node:fs";
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
}): Log {
  const min = RANK[opts.level ?? "info"];
  // The log directory is made on the first line written, so a command that logs nothing writes nothing.
  let dirReady = false;
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
      appendFileSync(opts.file, line, { mode: 0o600 });
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
