import { existsSync, openSync } from "node:fs";
import { processEnv } from "../config/env.ts";
import { fermixPaths, resolveHome } from "../config/paths.ts";
import { abortOnSignals, followFile } from "../observability/log-follow.ts";
import type { LogLevel } from "../observability/log-level.ts";
import {
  atLeast,
  createEntryGrouper,
  formatEntry,
  LOG_LEVELS,
  type LogEntry,
  logFiles,
  readLastEntries,
  readLastLines,
} from "../observability/log-reader.ts";
import { redact } from "../observability/redact.ts";
import { newestTraceFile, TRACE_TYPES } from "../observability/trace-files.ts";
import type { TraceType } from "../observability/traces.ts";
import type { ParsedArgs } from "./args.ts";
import { defineCommand } from "./command.ts";
import { EXIT, UsageError } from "./exit.ts";
import { writeErr, writeOut } from "./output.ts";

const DEFAULT_LINES = 50;

export default defineCommand({
  meta: {
    name: "logs",
    usage: "logs [-f] [-n N] [--level LEVEL] [--json]\nlogs --traces TYPE [-f] [-n N]",
    description: "Print the last lines of the log or of one type of traces; -f follows them",
    details:
      "The log is $FERMIX_HOME/logs/fermix.log with its rotated files; traces are $FERMIX_HOME/traces/<day>/<TYPE>.jsonl. With -f, new lines follow until Ctrl-C, across rotation and into the next day's traces.",
    examples: [
      "fermix logs -f --level warn",
      "fermix logs --json -n 200 | jq -r .text",
      "fermix logs --traces llm_call -n 5",
    ],
  },
  args: {
    follow: { type: "boolean", alias: "f", description: "keep printing new lines, across rotation" },
    lines: {
      type: "string",
      alias: "n",
      valueHint: "N",
      description: `how many lines to show first (default ${DEFAULT_LINES}; 0 with -f: only new ones)`,
    },
    level: { type: "enum", options: [...LOG_LEVELS], valueHint: "LEVEL", description: "only this level and above" },
    json: { type: "boolean", description: "one JSON object per line: {time, level, tag, text}" },
    traces: { type: "enum", options: TRACE_TYPES, valueHint: "TYPE", description: "the traces of TYPE instead" },
  },
  async run({ args }) {
    const request = readRequest(args);
    const paths = fermixPaths(resolveHome(processEnv()));
    // Installed before the first line is printed, so Ctrl-C or a SIGTERM at any point ends the follow as its
    // normal end (exit 0).
    const stop = request.follow ? abortOnSignals() : undefined;
    try {
      if (request.traces) await showTraces(request, request.traces, paths.traces, stop?.signal);
      else await showLog(request, paths.logFile, stop?.signal);
    } finally {
      stop?.dispose();
    }
    return EXIT.ok;
  },
});

type Request = { follow: boolean; lines: number; min?: LogLevel; json: boolean; traces?: TraceType };

/** The parser has checked the enums and refused stray words; what is left is the number and one combination. */
function readRequest(args: ParsedArgs): Request {
  const lines = args.lines === undefined ? String(DEFAULT_LINES) : String(args.lines);
  if (!/^\d+$/.test(lines)) throw UsageError(`logs: --lines takes a whole number (0 or more), not "${lines}"`);
  const level = args.level as LogLevel | undefined;
  const traces = args.traces as TraceType | undefined;
  if (traces !== undefined && level !== undefined) {
    throw UsageError("logs: --level filters the log; trace lines have no level");
  }
  return { follow: args.follow === true, lines: Number(lines), min: level, json: args.json === true, traces };
}

async function showLog(request: Request, logFile: string, signal: AbortSignal | undefined): Promise<void> {
  const files = logFiles(logFile);
  // When following, the current file is read only through the descriptor the follower goes on with: a line
  // written, or a rotation, between printing the tail and starting to follow is then neither lost nor
  // printed twice. Not there yet: the follower reads it from its start once it appears.
  const fd = signal ? openIfExists(logFile) : undefined;
  if (fd === undefined && !files.some((f) => existsSync(f))) {
    await writeErr(`no log yet at ${logFile}: the daemon writes it once it runs${signal ? "; waiting for it" : ""}\n`);
    if (!signal) return;
  }
  const current = signal ? (fd === undefined ? [] : [{ fd }]) : [logFile];
  const { entries, end } = readLastEntries([...current, ...files.slice(1)], { n: request.lines, min: request.min });
  await print(entries.map((e) => renderEntry(e, request.json)));
  if (!signal) return;
  const group = createEntryGrouper();
  await followFile({
    locate: () => logFile,
    start: fd === undefined ? undefined : { path: logFile, fd, offset: end },
    signal,
    onLines: (lines) =>
      print(
        group(lines)
          .filter((e) => !request.min || atLeast(e.level, request.min))
          .map((e) => renderEntry(e, request.json)),
      ),
  });
}

/**
 * Trace lines are JSON already, so `--json` changes nothing for them. Following moves on to the next day's
 * file once it exists: traces.ts starts a new folder at UTC midnight.
 */
async function showTraces(
  request: Request,
  type: TraceType,
  tracesDir: string,
  signal: AbortSignal | undefined,
): Promise<void> {
  const locate = () => newestTraceFile(tracesDir, type);
  const file = locate();
  // As for the log: when following, what is shown first is read through the descriptor the follower keeps.
  const fd = signal && file !== undefined ? openIfExists(file) : undefined;
  const source = signal ? (fd === undefined ? undefined : { fd }) : file;
  if (source === undefined) {
    await writeErr(
      `no ${type} traces yet under ${tracesDir}: the daemon writes them once it runs${signal ? "; waiting for them" : ""}\n`,
    );
    if (!signal) return;
  }
  const { lines, end } = source === undefined ? { lines: [], end: 0 } : readLastLines(source, request.lines);
  await print(lines.map((line) => redact(line)));
  if (!signal) return;
  await followFile({
    locate,
    start: fd === undefined || file === undefined ? undefined : { path: file, fd, offset: end },
    signal,
    onLines: (more) => print(more.map((line) => redact(line))),
  });
}

/**
 * Lines are redacted when written; they pass the redactor again because a file older than a redaction
 * rule still holds what that rule would now catch.
 */
function renderEntry(entry: LogEntry, json: boolean): string {
  if (!json) return redact(formatEntry(entry));
  return JSON.stringify({ time: entry.time, level: entry.level, tag: entry.tag, text: redact(entry.text) });
}

async function print(lines: string[]): Promise<void> {
  if (lines.length) await writeOut(`${lines.join("\n")}\n`);
}

function openIfExists(path: string): number | undefined {
  try {
    return openSync(path, "r");
  } catch {
    return undefined;
  }
}
