import { openSqlite, type SqlDatabase } from "../runtime/sqlite.ts";
import { MIGRATIONS } from "./migrations.ts";

/**
 * Opens memory.db in WAL mode so the daemon and an in-process `fermix ask` can share it, and brings
 * its schema up to date. Migrations are numbered; PRAGMA user_version records the last one applied.
 */
export function openDatabase(path: string): SqlDatabase {
  const db = openSqlite(path, { persistWal: true });
  db.exec("PRAGMA journal_mode = WAL");
  // WAL with synchronous=NORMAL survives a crash of the process; only a power cut can lose the newest commits.
  db.exec("PRAGMA synchronous = NORMAL");
  db.exec("PRAGMA busy_timeout = 5000");
  db.exec("PRAGMA foreign_keys = ON");
  migrate(db);
  return db;
}

export function migrate(db: SqlDatabase): void {
  const current = (db.query("PRAGMA user_version").get() as { user_version: number }).user_version;
  for (let n = current; n < MIGRATIONS.length; n++) {
    db.transaction(() => {
      db.exec(MIGRATIONS[n]!);
      db.exec(`PRAGMA user_version = ${n + 1}`);
    }).immediate();
  }
}
