import { appendFileSync, mkdirSync } from "node:fs";
import { dirname } from "node:path";
import { type ConsolaInstance, createConsola, type LogObject } from "consola";
import { redact } from "./redact.ts";

export type Log = ConsolaInstance;

/**
 * The program's one consola instance. Every sink — the log file and, for the daemon, stderr —
 * receives text that already passed the redactor.
 */
export function createLog(opts: {
  file?: string;
  stderr?: boolean;
  level?: number;
  secrets?: () => readonly string[];
}): Log {
  // The log directory is made on the first line written, so a command that logs nothing writes nothing.
  let dirReady = false;
  const render = (o: LogObject) => {
    const args = o.args.map((a) => (typeof a === "string" ? a : safeJson(a))).join(" ");
    const tag = o.tag ? ` [${o.tag}]` : "";
    return redact(`${o.date.toISOString()} ${o.type.toUpperCase()}${tag} ${args}`, opts.secrets?.() ?? []);
  };
  return createConsola({
    level: opts.level ?? 3,
    reporters: [
      {
        log(o) {
          const line = `${render(o)}\n`;
          if (opts.file) {
            if (!dirReady) {
              mkdirSync(dirname(opts.file), { recursive: true, mode: 0o700 });
              dirReady = true;
            }
            appendFileSync(opts.file, line, { mode: 0o600 });
          }
          if (opts.stderr) process.stderr.write(line);
        },
      },
    ],
  });
}

function safeJson(value: unknown): string {
  if (value instanceof Error) return value.stack ?? value.message;
  try {
    return JSON.stringify(value);
  } catch {
    return String(value);
  }
}
