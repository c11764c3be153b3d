/**
 * memory.db opened on first use (src/memory/lazy-database.ts), and a one-shot process's early open while its first
 * model request is out (warmWhileWaiting, issue 31).
 */
import { describe, expect, test } from "bun:test";
import { existsSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { lazyDatabase } from "../../src/memory/lazy-database.ts";
import { cleanupAfterEach } from "../fixture/cleanup.ts";

const defer = cleanupAfterEach();

function dbPath(): string {
  const dir = mkdtempSync(join(tmpdir(), "fx-lazydb-"));
  defer(() => rmSync(dir, { recursive: true, force: true }));
  return join(dir, "home", "memory.db");
}

/** A memory.db an earlier process made and closed. */
function made(path: string): string {
  const first = lazyDatabase(path, { role: "oneshot" });
  first.get();
  first.close();
  return path;
}

describe("warming a one-shot process's memory.db while its first request is out", () => {
  test("one that exists is opened then, and get() hands out that connection", () => {
    const database = lazyDatabase(made(dbPath()), { role: "oneshot" });
    expect(database.opened()).toBe(false);
    database.warmWhileWaiting();
    expect(database.opened()).toBe(true);
    expect(database.get().query("PRAGMA journal_mode").get()).toEqual({ journal_mode: "wal" });
    database.close();
  });

  test("one not made yet stays unmade: an ask that fails writes nothing to FERMIX_HOME", () => {
    const path = dbPath();
    const database = lazyDatabase(path, { role: "oneshot" });
    database.warmWhileWaiting();
    expect(database.opened()).toBe(false);
    expect(existsSync(join(path, ".."))).toBe(false);
  });

  test("the daemon's is left to open on its first use", () => {
    const daemon = lazyDatabase(made(dbPath()), { role: "daemon" });
    daemon.warmWhileWaiting();
    expect(daemon.opened()).toBe(false);
  });

  test("one that cannot be opened is not raised by the warm-up but by the first real use", () => {
    const path = dbPath();
    made(path);
    writeFileSync(path, "this is not a database, and it is long enough to have a header of sorts......");
    for (const suffix of ["-wal", "-shm"]) rmSync(`${path}${suffix}`, { force: true });
    const database = lazyDatabase(path, { role: "oneshot" });
    expect(() => database.warmWhileWaiting()).not.toThrow();
    expect(database.opened()).toBe(false);
    expect(() => database.get()).toThrow();
  });
});
