import { isatty } from "node:tty";
import { styleText } from "node:util";
import { type ConsolaReporter, createConsola, LogLevels, type LogObject } from "consola/core";
import type { Env } from "../config/env.ts";
import { stderrIsJournal } from "./journal.ts";
import type { LogLevel } from "./log-level.ts";

/**
 * The daemon's log lines on stderr, through the program's one consola instance. Loaded only when a stderr
 * sink is wanted (log.ts imports this module dynamically), so a one-shot `fermix ask` never pays for consola.
 *
 * What reaches consola was redacted by log.ts first: no reporter ever sees a secret.
 *
 * - "color" (stderr is a terminal, NO_COLOR unset, TERM not dumb): the log file's very line,
 *   `<ISO-8601 time> LEVEL [tag] text`, with the time and tag dimmed and the level coloured. Strip the
 *   colour and it is byte for byte what fermix.log holds, so `fermix run` on a terminal and `fermix logs`
 *   read the same.
 * - "plain" (a pipe or file, or NO_COLOR): that line without colour.
 * - "journald" (stderr is the stream JOURNAL_STREAM names): no time of ours — the journal stamps each
 *   entry — and an sd-daemon(3) priority prefix (`<3>` error … `<7>` debug) on every line, which journald
 *   strips and records as PRIORITY (SyslogLevelPrefix= is on by default), so `journalctl -p warning` works
 *   and a stack trace's lines keep its error's priority. The level word stays, for grep.
 */
export type StderrStyle = "color" | "plain" | "journald";

export type StderrLine = { level: LogLevel; tag?: string; text: string; date: Date };

/**
 * Decides the style from the environment and the descriptor itself. JOURNAL_STREAM is only believed when it
 * names fd 2's own device and inode, as systemd.exec(5) advises: a shell started from a service inherits the
 * variable while its stderr is a terminal.
 */
export function stderrStyle(
  env: Env,
  { fd = 2, isTTY = isatty(fd) }: { fd?: number; isTTY?: boolean } = {},
): StderrStyle {
  if (stderrIsJournal(env, fd)) return "journald";
  if (!isTTY || env.NO_COLOR || env.TERM === "dumb") return "plain";
  return "color";
}

/** Returns the sink log.ts hands each redacted line to; `write` is the process's stderr outside tests. */
export function createStderrSink(style: StderrStyle, write: (text: string) => void): (line: StderrLine) => void {
  const consola = createConsola({
    reporters: [stderrReporter(style, write)],
    // log.ts already dropped lines below its level; consola passes every one it is given.
    level: LogLevels.debug,
    // Never throttles ("repeated N times"): stderr shows every line the file gets, when it gets it.
    throttle: 0,
  });
  // The tag rides on the log object rather than a withTag child per tag: one instance, one reporter.
  return ({ level, tag, text, date }) => consola[level]({ args: [text], tag, date });
}

/** One consola log object → the text written to stderr. */
function formatStderr(logObj: Pick<LogObject, "type" | "tag" | "args" | "date">, style: StderrStyle): string {
  const level = logObj.type.toUpperCase();
  const tag = logObj.tag ? `[${logObj.tag}] ` : "";
  const text = logObj.args.map(String).join(" ");
  if (style === "journald") {
    const prefix = `<${PRIORITY[logObj.type] ?? 6}>`;
    return `${`${level} ${tag}${text}`
      .split("\n")
      .map((line) => prefix + line)
      .join("\n")}\n`;
  }
  const stamp = logObj.date.toISOString();
  if (style === "plain") return `${stamp} ${level} ${tag}${text}\n`;
  // styleText with validateStream off: the style was decided for fd 2 above, not by node's look at stdout.
  const paint = (format: Parameters<typeof styleText>[0], s: string) => styleText(format, s, { validateStream: false });
  const tagged = tag ? `${paint("gray", tag.trimEnd())} ` : "";
  return `${paint("gray", stamp)} ${paint(LEVEL_STYLE[logObj.type] ?? "reset", level)} ${tagged}${text}\n`;
}

const PRIORITY: Record<string, number> = { error: 3, warn: 4, info: 6, debug: 7 };
const LEVEL_STYLE: Record<string, Parameters<typeof styleText>[0]> = {
  error: ["red", "bold"],
  warn: "yellow",
  info: "cyan",
  debug: "gray",
};

function stderrReporter(style: StderrStyle, write: (text: string) => void): ConsolaReporter {
  return { log: (logObj) => write(formatStderr(logObj, style)) };
}
