import { describe, expect, test } from "bun:test";
import { closeSync, mkdirSync, openSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { createLog } from "../../src/observability/log.ts";
import {
  atLeast,
  createEntryGrouper,
  formatEntry,
  logFiles,
  parseLogLine,
  readLastEntries,
  readLastLines,
} from "../../src/observability/log-reader.ts";
import { cleanupAfterEach } from "../fixture/cleanup.ts";
import { tempHome } from "../fixture/home.ts";

const defer = cleanupAfterEach();

function logFile(): string {
  const h = tempHome();
  defer(() => h[Symbol.asyncDispose]());
  mkdirSync(join(h.home, "logs"), { recursive: true });
  return join(h.home, "logs", "fermix.log");
}

const T = "2025-03-01T12:00:00.000Z";

describe("parseLogLine", () => {
  test("reads what log.ts writes: time, level, optional tag, text", () => {
    expect(parseLogLine(`${T} INFO [daemon] listening on /tmp/x.sock`)).toEqual({
      time: T,
      level: "info",
      tag: "daemon",
      text: "listening on /tmp/x.sock",
    });
    expect(parseLogLine(`${T} WARN no tag here`)).toEqual({ time: T, level: "warn", tag: null, text: "no tag here" });
    expect(parseLogLine(`${T} ERROR [jobs:runner] `)).toEqual({
      time: T,
      level: "error",
      tag: "jobs:runner",
      text: "",
    });
  });

  test("a stack trace's continuation, or anything else, is not an entry", () => {
    expect(parseLogLine("    at run (src/app.ts:12:3)")).toBeUndefined();
    expect(parseLogLine("Error: boom")).toBeUndefined();
    expect(parseLogLine(`${T} NOTICE something`)).toBeUndefined();
  });

  test("formatEntry gives back the stored line", () => {
    const line = `${T} DEBUG [a:b] x = 1`;
    expect(formatEntry(parseLogLine(line)!)).toBe(line);
  });

  test("levels order debug < info < warn < error", () => {
    expect(atLeast("debug", "info")).toBe(false);
    expect(atLeast("info", "info")).toBe(true);
    expect(atLeast("error", "warn")).toBe(true);
    expect(atLeast("warn", "error")).toBe(false);
  });
});

describe("readLastEntries", () => {
  test("the lines written by the real logger, with an error's stack joined to its entry", () => {
    const file = logFile();
    const log = createLog({ file, level: "debug", now: () => new Date(T) });
    log.info("first");
    log.withTag("tools").error("failed:", new Error("boom"));
    log.debug("last");
    const { entries } = readLastEntries(logFiles(file), { n: 50 });
    expect(entries.map((e) => [e.level, e.tag, e.text.split("\n")[0]])).toEqual([
      ["info", null, "first"],
      ["error", "tools", "failed: Error: boom"],
      ["debug", null, "last"],
    ]);
    expect(entries[1]!.text).toContain("\n    at ");
  });

  test("filters by minimum level and counts only what it shows", () => {
    const file = logFile();
    const lines = ["debug", "info", "warn", "error", "debug", "info"].map(
      (level, i) => `${T} ${level.toUpperCase()} line ${i}`,
    );
    writeFileSync(file, `${lines.join("\n")}\n`);
    const texts = (min: "debug" | "info" | "warn" | "error", n = 50) =>
      readLastEntries([file], { n, min }).entries.map((e) => e.text);
    expect(texts("warn")).toEqual(["line 2", "line 3"]);
    expect(texts("error")).toEqual(["line 3"]);
    expect(texts("info", 2)).toEqual(["line 3", "line 5"]);
    expect(texts("debug", 3)).toEqual(["line 3", "line 4", "line 5"]);
  });

  test("-n reaches back across the rotated files, newest last", () => {
    const file = logFile();
    const log = createLog({ file, rotate: { maxBytes: 300, keep: 5 }, now: () => new Date(T) });
    for (let i = 0; i < 40; i++) log.info(`line ${String(i).padStart(2, "0")} ${"x".repeat(20)}`);
    const numbers = (n: number) =>
      readLastEntries(logFiles(file), { n }).entries.map((e) => Number(/line (\d+)/.exec(e.text)![1]));
    // 40 lines of ~60 bytes at 300 bytes a file: the current file alone holds fewer than 12.
    expect(numbers(12)).toEqual(Array.from({ length: 12 }, (_, i) => 28 + i));
    // Six files of at most five lines: everything kept is the last lines, in order, with none missing.
    const all = numbers(1000);
    expect(all.at(-1)).toBe(39);
    expect(all).toEqual(Array.from({ length: all.length }, (_, i) => 40 - all.length + i));
  });

  test("entries longer than the read chunk, and a first line with no entry before it", () => {
    const file = logFile();
    const long = "y".repeat(200_000);
    writeFileSync(file, `  at orphan\n${T} INFO ${long}\n${T} WARN [t] é ünïcode\nmore\n`);
    const { entries } = readLastEntries([file], { n: 10 });
    expect(entries).toEqual([
      { time: null, level: null, tag: null, text: "  at orphan" },
      { time: T, level: "info", tag: null, text: long },
      { time: T, level: "warn", tag: "t", text: "é ünïcode\nmore" },
    ]);
  });

  test("a line still being written is left out, and `end` is where the complete lines stop", () => {
    const file = logFile();
    const done = `${T} INFO done\n`;
    writeFileSync(file, `${done}${T} INFO half-writ`);
    const fd = openSync(file, "r");
    defer(() => closeSync(fd));
    const { entries, end } = readLastEntries([{ fd }], { n: 5 });
    expect(entries.map((e) => e.text)).toEqual(["done"]);
    expect(end).toBe(Buffer.byteLength(done));
    expect(readLastEntries([file], { n: 0 })).toEqual({ entries: [], end: Buffer.byteLength(done) });
  });

  test("missing files hold nothing", () => {
    const file = logFile();
    expect(readLastEntries(logFiles(file), { n: 5 })).toEqual({ entries: [], end: 0 });
  });
});

describe("readLastLines", () => {
  test("the last n complete lines of one file", () => {
    const file = logFile();
    writeFileSync(file, '{"a":1}\n{"a":2}\n{"a":3}\n{"a":');
    expect(readLastLines(file, 2)).toEqual({ lines: ['{"a":2}', '{"a":3}'], end: 24 });
    expect(readLastLines(file, 0).lines).toEqual([]);
  });
});

describe("createEntryGrouper", () => {
  test("continuation lines join their entry within a batch, and carry its level into the next batch", () => {
    const group = createEntryGrouper();
    expect(group([`${T} ERROR [x] boom`, "  at a", `${T} INFO ok`, "  at b"])).toEqual([
      { time: T, level: "error", tag: "x", text: "boom\n  at a" },
      { time: T, level: "info", tag: null, text: "ok\n  at b" },
    ]);
    expect(group(["  at c"])).toEqual([{ time: T, level: "info", tag: null, text: "  at c" }]);
  });
});
