import { closeSync, fstatSync, openSync, readSync } from "node:fs";
import { LOG_KEEP } from "./log.ts";
import type { LogLevel } from "./log-level.ts";

/** Lowest first: a minimum level shows itself and everything after it. */
export const LOG_LEVELS = ["debug", "info", "warn", "error"] as const satisfies readonly LogLevel[];

/**
 * One event of the log: its first line parsed, the lines after it that do not parse (a stack trace) joined
 * to `text`. Lines with no event before them (a file that starts mid-event) have no time, level or tag.
 */
export type LogEntry = { time: string | null; level: LogLevel | null; tag: string | null; text: string };

/** A file by path (opened and closed here) or one the caller holds open, to keep reading it afterwards. */
export type LogSource = string | { fd: number };

/** What log.ts writes: `<iso time> LEVEL [tag] text`, the tag optional, the text possibly empty. */
const HEAD = /^(\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(?:\.\d+)?Z) (DEBUG|INFO|WARN|ERROR)(?: \[([^\]\s]+)\])?(?: (.*))?$/;

const CHUNK = 64 * 1024;

export function parseLogLine(line: string): LogEntry | undefined {
  const m = HEAD.exec(line);
  if (!m) return undefined;
  return { time: m[1]!, level: m[2]!.toLowerCase() as LogLevel, tag: m[3] ?? null, text: m[4] ?? "" };
}

/** The entry as log.ts wrote it (continuation lines included). */
export function formatEntry(entry: LogEntry): string {
  if (entry.time === null || entry.level === null) return entry.text;
  return `${entry.time} ${entry.level.toUpperCase()}${entry.tag ? ` [${entry.tag}]` : ""} ${entry.text}`;
}

/** An entry whose level is unknown is shown: hiding a line nobody can classify would hide it for good. */
export function atLeast(level: LogLevel | null, min: LogLevel): boolean {
  return level === null || LOG_LEVELS.indexOf(level) >= LOG_LEVELS.indexOf(min);
}

/** `fermix.log`, then its rotated files newest first (`.1` … `.<keep>`), as log.ts names them. */
export function logFiles(logFile: string, keep: number = LOG_KEEP): string[] {
  return [logFile, ...Array.from({ length: keep }, (_, i) => `${logFile}.${i + 1}`)];
}

/**
 * The last `n` entries at or above `min` across `sources` (the newest file first), returned oldest first.
 * An entry never spans files (log.ts rotates before a write, never within one). `end` is where the complete
 * lines of the first source end: a follower continues from there, so a line half-written now is read whole
 * later rather than printed in two pieces.
 */
export function readLastEntries(
  sources: readonly LogSource[],
  opts: { n: number; min?: LogLevel },
): { entries: LogEntry[]; end: number } {
  const found: LogEntry[] = [];
  let end = 0;
  // A rotation between opening the current file and reading the rotated ones would show one file twice.
  const seen = new Set<string>();
  for (const [i, source] of sources.entries()) {
    withFd(source, (fd) => {
      const stat = fstatSync(fd);
      if (seen.has(`${stat.dev}:${stat.ino}`)) return;
      seen.add(`${stat.dev}:${stat.ino}`);
      const fileEnd = completeEnd(fd, stat.size);
      if (i === 0) end = fileEnd;
      if (found.length >= opts.n) return;
      for (const entry of entriesBackward(linesBackward(fd, fileEnd))) {
        if (opts.min && !atLeast(entry.level, opts.min)) continue;
        found.push(entry);
        if (found.length >= opts.n) return;
      }
    });
    if (found.length >= opts.n) break;
  }
  return { entries: found.reverse(), end };
}

/** The last `n` complete lines of one file (a trace file: one JSON object a line), oldest first. */
export function readLastLines(source: LogSource, n: number): { lines: string[]; end: number } {
  const lines: string[] = [];
  let end = 0;
  withFd(source, (fd) => {
    end = completeEnd(fd, fstatSync(fd).size);
    if (n <= 0) return;
    for (const line of linesBackward(fd, end)) {
      lines.push(line);
      if (lines.length >= n) break;
    }
  });
  return { lines: lines.reverse(), end };
}

/**
 * Groups lines that arrive in batches (a follower's reads) into entries. A batch that starts with
 * continuation lines finishes an entry already handed out, so those lines carry its time, level and tag.
 */
export function createEntryGrouper(): (lines: readonly string[]) => LogEntry[] {
  let last: LogEntry | undefined;
  return (lines) => {
    const out: LogEntry[] = [];
    for (const line of lines) {
      const head = parseLogLine(line);
      const open = out.at(-1);
      if (head) out.push(head);
      else if (open) open.text += `\n${line}`;
      else out.push({ time: last?.time ?? null, level: last?.level ?? null, tag: last?.tag ?? null, text: line });
      last = out.at(-1);
    }
    return out;
  };
}

function withFd(source: LogSource, use: (fd: number) => void): void {
  if (typeof source !== "string") {
    use(source.fd);
    return;
  }
  let fd: number;
  try {
    fd = openSync(source, "r");
  } catch (err) {
    // Rotated files come and go (only as many as have been needed exist); a missing one holds nothing.
    if ((err as NodeJS.ErrnoException).code === "ENOENT") return;
    throw err;
  }
  try {
    use(fd);
  } finally {
    closeSync(fd);
  }
}

function readAt(fd: number, position: number, length: number): Buffer {
  const buf = Buffer.allocUnsafe(length);
  let got = 0;
  while (got < length) {
    const n = readSync(fd, buf, got, length - got, position + got);
    if (n === 0) break;
    got += n;
  }
  return buf.subarray(0, got);
}

/** The offset just past the last newline (0 when there is none): bytes after it are a line still being written. */
function completeEnd(fd: number, size: number): number {
  for (let pos = size; pos > 0; ) {
    const length = Math.min(CHUNK, pos);
    pos -= length;
    const nl = readAt(fd, pos, length).lastIndexOf(0x0a);
    if (nl >= 0) return pos + nl + 1;
  }
  return 0;
}

/**
 * The lines of [0, end) from the last to the first, read in chunks from the end: a tail of 50 lines reads
 * a few kilobytes, not the 10 MB file. `end` is 0 or just past a newline. Splitting on the newline byte is
 * safe in UTF-8 (it never occurs inside a multi-byte character).
 */
function* linesBackward(fd: number, end: number): Generator<string> {
  let rest: Buffer = Buffer.alloc(0);
  let seenLast = false;
  for (let pos = end; pos > 0; ) {
    const length = Math.min(CHUNK, pos);
    pos -= length;
    rest = Buffer.concat([readAt(fd, pos, length), rest]);
    let stop = rest.length;
    while (stop > 0) {
      const nl = rest.lastIndexOf(0x0a, stop - 1);
      if (nl < 0) break;
      // The segment after the final newline is empty: it ends the last line rather than being one.
      if (seenLast) yield rest.toString("utf8", nl + 1, stop);
      seenLast = true;
      stop = nl;
    }
    rest = rest.subarray(0, stop);
  }
  if (seenLast) yield rest.toString("utf8");
}

function* entriesBackward(lines: Iterable<string>): Generator<LogEntry> {
  let continuation: string[] = [];
  for (const line of lines) {
    const head = parseLogLine(line);
    if (!head) {
      continuation.push(line);
      continue;
    }
    if (continuation.length) head.text += `\n${continuation.reverse().join("\n")}`;
    continuation = [];
    yield head;
  }
  if (continuation.length) yield { time: null, level: null, tag: null, text: continuation.reverse().join("\n") };
}
