import { describe, expect, test } from "bun:test";
import { mkdtempSync, readdirSync, readlinkSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { openDatabase } from "../../src/memory/db.ts";
import { lazyDatabase } from "../../src/memory/lazy-database.ts";
import { ONESHOT_WAL_LIMIT_BYTES } from "../../src/memory/oneshot-close.ts";

const size = (file: string) => {
  try {
    return statSync(file).size;
  } catch {
    return 0;
  }
};

/** How many of this process's descriptors are open on `file`. */
const descriptorsOn = (file: string) =>
  readdirSync("/proc/self/fd").filter((fd) => {
    try {
      return readlinkSync(`/proc/self/fd/${fd}`) === file;
    } catch {
      return false;
    }
  }).length;

/** One one-shot process's worth of memory.db: open, one commit of `bytes`, close as a one-shot ask does. */
function oneShot(path: string, bytes: number): void {
  const database = lazyDatabase(path, { role: "oneshot" });
  const db = database.get();
  db.exec("CREATE TABLE IF NOT EXISTS t (x BLOB)");
  db.query("INSERT INTO t VALUES ($x)").run({ x: new Uint8Array(bytes) });
  database.close();
}

describe("a one-shot process's close of memory.db", () => {
  test("leaves the log unfolded: the database file is not written, the turn is read from the log", async () => {
    const dir = mkdtempSync(join(tmpdir(), "fx-oneshot-"));
    try {
      const path = join(dir, "memory.db");
      oneShot(path, 100);
      const before = size(path);
      oneShot(path, 3 * 4096);
      expect(size(path)).toBe(before);
      expect(size(`${path}-wal`)).toBeGreaterThan(3 * 4096);
      // The next process reads it.
      const read = Bun.spawnSync(
        [
          process.execPath,
          "-e",
          `const { Database } = require("bun:sqlite"); console.log(new Database(${JSON.stringify(path)}).query("SELECT count(*) AS n FROM t").get().n)`,
        ],
        { stdout: "pipe", stderr: "pipe" },
      );
      expect(read.stdout.toString().trim()).toBe("2");
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  test("a database warmed while the first request was out closes the same way, with the holder opened then", () => {
    const dir = mkdtempSync(join(tmpdir(), "fx-oneshot-"));
    try {
      const path = join(dir, "memory.db");
      oneShot(path, 100);
      const before = size(path);
      const database = lazyDatabase(path, { role: "oneshot" });
      database.warmWhileWaiting();
      // The writer and its read-only holder (Linux: the process's descriptors on the file).
      expect(descriptorsOn(path)).toBe(2);
      database
        .get()
        .query("INSERT INTO t VALUES ($x)")
        .run({ x: new Uint8Array(3 * 4096) });
      database.close();
      expect(size(path)).toBe(before);
      expect(size(`${path}-wal`)).toBeGreaterThan(3 * 4096);
      const db = openDatabase(path);
      expect(db.query<{ n: number }>("SELECT count(*) AS n FROM t").get()!.n).toBe(2);
      db.close();
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  test("a connection that stays open (the daemon's) sees the one-shot's commits", () => {
    const dir = mkdtempSync(join(tmpdir(), "fx-oneshot-"));
    try {
      const path = join(dir, "memory.db");
      const daemon = openDatabase(path);
      daemon.exec("CREATE TABLE t (x BLOB)");
      for (let i = 0; i < 5; i++) oneShot(path, 2000);
      expect(daemon.query<{ n: number }>("SELECT count(*) AS n FROM t").get()!.n).toBe(5);
      daemon.close();
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  test("the log does not grow without bound across many one-shot processes of one commit each", () => {
    const dir = mkdtempSync(join(tmpdir(), "fx-oneshot-"));
    try {
      const path = join(dir, "memory.db");
      let largest = 0;
      // ~6 MB written in all, past SQLite's own 1,000-page automatic checkpoint.
      for (let i = 0; i < 300; i++) {
        oneShot(path, 5 * 4096);
        largest = Math.max(largest, size(`${path}-wal`));
      }
      expect(largest).toBeLessThan(ONESHOT_WAL_LIMIT_BYTES + 16 * 4096);
      const db = openDatabase(path);
      expect(db.query<{ n: number }>("SELECT count(*) AS n FROM t").get()!.n).toBe(300);
      db.close();
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
