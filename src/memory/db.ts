import { constants, Database } from "bun:sqlite";
import { MIGRATIONS } from "./migrations.ts";

/**
 * Opens memory.db in WAL mode so the daemon and an in-process `fermix ask` can share it, and brings
 * its schema up to date. Migrations are numbered; PRAGMA user_version records the last one applied.
 */
export function openDatabase(path: string): Database {
  const db = new Database(path, { create: true, strict: true });
  // Keep the -wal file when the last connection closes: re-creating it made the first write of every
  // one-shot `fermix ask` (no daemon) cost about a millisecond more.
  db.fileControl(constants.SQLITE_FCNTL_PERSIST_WAL, 1);
  db.exec("PRAGMA journal_mode = WAL");
  // WAL with synchronous=NORMAL survives a crash of the process; only a power cut can lose the newest commits.
  db.exec("PRAGMA synchronous = NORMAL");
  db.exec("PRAGMA busy_timeout = 5000");
  db.exec("PRAGMA foreign_keys = ON");
  migrate(db);
  return db;
}

export function migrate(db: Database): void {
  const current = (db.query("PRAGMA user_version").get() as { user_version: number }).user_version;
  for (let n = current; n < MIGRATIONS.length; n++) {
    db.transaction(() => {
      db.exec(MIGRATIONS[n]!);
      db.exec(`PRAGMA user_version = ${n + 1}`);
    }).immediate();
  }
}
