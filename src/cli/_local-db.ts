import { existsSync } from "node:fs";
import { processEnv } from "../config/env.ts";
import { fermixPaths, resolveHome } from "../config/paths.ts";
import { migrate } from "../memory/db.ts";
import { openSqlite, type SqlDatabase } from "../runtime/sqlite.ts";

/**
 * memory.db as a CLI command reads it without the daemon (`fermix jobs`, `fermix sessions`): opened for one use and
 * closed. A home without memory.db, or with one from before `table` existed, is read as an empty database in
 * memory, so nothing is created on disk and the schema is never migrated from here (that is the daemon's, or the
 * next in-process ask's, to do). A writer waits up to 5 s for the daemon's commit instead of failing.
 */
export function withLocalDatabase<T>(opts: { mode: "read" | "write"; table: string }, use: (db: SqlDatabase) => T): T {
  const path = fermixPaths(resolveHome(processEnv())).db;
  let db = existsSync(path) ? openSqlite(path, { readonly: opts.mode === "read" }) : undefined;
  if (db && opts.mode === "write") db.exec("PRAGMA busy_timeout = 5000");
  if (db && !hasTable(db, opts.table)) {
    db.close();
    db = undefined;
  }
  if (!db) {
    db = openSqlite(":memory:");
    migrate(db);
  }
  try {
    return use(db);
  } finally {
    db.close();
  }
}

function hasTable(db: SqlDatabase, name: string): boolean {
  return db.query("SELECT 1 AS x FROM sqlite_master WHERE type = 'table' AND name = ?").get(name) !== null;
}
