import { describe, expect, test } from "bun:test";
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createLog } from "../../src/observability/log.ts";
import { cleanupAfterEach } from "../fixture/cleanup.ts";

const defer = cleanupAfterEach();

function logDir() {
  const dir = mkdtempSync(join(tmpdir(), "fx-log-"));
  defer(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
}

describe("the log file", () => {
  test("rotates past its size, keeping the newest lines in fermix.log and at most `keep` old files", () => {
    const dir = logDir();
    const file = join(dir, "logs", "fermix.log");
    const log = createLog({ file, rotate: { maxBytes: 1000, keep: 3 }, now: () => new Date(0) });
    for (let i = 0; i < 100; i++) log.info(`line ${String(i).padStart(3, "0")} ${"x".repeat(60)}`);
    expect(readdirSync(join(dir, "logs")).sort()).toEqual([
      "fermix.log",
      "fermix.log.1",
      "fermix.log.2",
      "fermix.log.3",
    ]);
    for (const name of readdirSync(join(dir, "logs"))) {
      expect(statSync(join(dir, "logs", name)).size).toBeLessThanOrEqual(1000);
      expect(statSync(join(dir, "logs", name)).mode & 0o777).toBe(0o600);
    }
    expect(readFileSync(file, "utf8")).toContain("line 099");
    // Lines are never split across files, and the newest old file holds what came just before.
    const previous = readFileSync(`${file}.1`, "utf8").trim().split("\n");
    const current = readFileSync(file, "utf8").trim().split("\n");
    const number = (l: string) => Number(/line (\d+)/.exec(l)![1]);
    expect(number(current[0]!)).toBe(number(previous.at(-1)!) + 1);
  });

  test("a file another process grew is rotated by its real size", () => {
    const dir = logDir();
    const file = join(dir, "fermix.log");
    const a = createLog({ file, rotate: { maxBytes: 500, keep: 2 } });
    const b = createLog({ file, rotate: { maxBytes: 500, keep: 2 } });
    a.info("first");
    for (let i = 0; i < 20; i++) b.info(`from b ${"y".repeat(40)}`);
    a.info("a again");
    expect(existsSync(`${file}.1`)).toBe(true);
    expect(statSync(file).size).toBeLessThanOrEqual(500);
  });
});
