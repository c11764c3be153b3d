import { describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { startBackgroundCheckpoints } from "../../src/memory/background-checkpoints.ts";
import { openDatabase } from "../../src/memory/db.ts";

describe("the daemon's background checkpoints", () => {
  test("writes no longer checkpoint on their own; checkpoint() folds the log back, stop() once more", () => {
    const dir = mkdtempSync(join(tmpdir(), "fx-ckpt-"));
    try {
      const db = openDatabase(join(dir, "memory.db"));
      const checkpoints = startBackgroundCheckpoints(db, { intervalMs: 3_600_000 });
      expect(db.query<{ wal_autocheckpoint: number }>("PRAGMA wal_autocheckpoint").get()!.wal_autocheckpoint).toBe(0);
      db.exec("CREATE TABLE t (x BLOB)");
      const insert = db.query("INSERT INTO t VALUES ($x)");
      // Well past SQLite's 1,000-page automatic checkpoint.
      for (let i = 0; i < 1500; i++) insert.run({ x: new Uint8Array(4096) });
      const before = statSync(join(dir, "memory.db")).size;
      checkpoints.checkpoint();
      expect(statSync(join(dir, "memory.db")).size).toBeGreaterThan(before + 1000 * 4096);
      checkpoints.stop();
      db.close();
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
