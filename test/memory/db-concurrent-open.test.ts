/**
 * Two scripted asks against a fresh FERMIX_HOME open memory.db at the same moment: each waits for the other's
 * switch to WAL and its migrations instead of failing "database is locked" or "table … already exists". Real
 * processes, since SQLite's locks are between connections of different processes here.
 */
import { expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { MIGRATIONS } from "../../src/memory/migrations.ts";
import { openSqlite } from "../../src/runtime/sqlite.ts";

const DB_MODULE = join(import.meta.dir, "../../src/memory/db.ts");

test("processes opening one fresh memory.db together all get it, migrated once", async () => {
  const dir = mkdtempSync(join(tmpdir(), "fx-db-open-"));
  try {
    const path = join(dir, "memory.db");
    const script = `const { openDatabase } = await import(${JSON.stringify(DB_MODULE)}); openDatabase(${JSON.stringify(path)}).close();`;
    const runs = Array.from({ length: 6 }, () =>
      Bun.spawn([process.execPath, "-e", script], { stdout: "pipe", stderr: "pipe" }),
    );
    const results = await Promise.all(
      runs.map(async (p) => ({ code: await p.exited, stderr: await new Response(p.stderr).text() })),
    );
    expect(results).toEqual(runs.map(() => ({ code: 0, stderr: "" })));
    const db = openSqlite(path);
    expect(db.query("PRAGMA user_version").get()).toEqual({ user_version: MIGRATIONS.length });
    db.close();
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
