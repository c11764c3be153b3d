import { createBackoff } from "../net/backoff.ts";
import { isSqliteBusy, openSqlite, type SqlDatabase } from "../runtime/sqlite.ts";
import { MIGRATIONS } from "./migrations.ts";

/**
 * Opens memory.db in WAL mode so the daemon and an in-process `fermix ask` can share it, and brings
 * its schema up to date. Migrations are numbered; PRAGMA user_version records the last one applied.
 */
export function openDatabase(path: string): SqlDatabase {
  const db = openSqlite(path, { persistWal: true });
  // First: switching a fresh file to WAL and migrating it take the write lock, which another process opening the
  // same home at the same moment (two scripted asks) may hold; they wait for it rather than fail "database is locked".
  db.exec(`PRAGMA busy_timeout = ${BUSY_TIMEOUT_MS}`);
  switchToWal(db);
  // WAL with synchronous=NORMAL survives a crash of the process; only a power cut can lose the newest commits.
  db.exec("PRAGMA synchronous = NORMAL");
  db.exec("PRAGMA foreign_keys = ON");
  migrate(db);
  return db;
}

/** How long opening memory.db waits for another process's lock. */
const BUSY_TIMEOUT_MS = 5000;

/**
 * `PRAGMA journal_mode = WAL`, tried again while another process holds the lock. Switching a fresh file reads it, then
 * needs it alone: two processes doing that at once would deadlock, so SQLite refuses one of them with SQLITE_BUSY at
 * once instead of calling the busy handler (which only waits for a lock the connection does not already half hold).
 * Seen in CI: one of six processes opening a fresh memory.db together failed "database is locked"
 * (test/memory/db-concurrent-open.test.ts).
 */
export function switchToWal(db: Pick<SqlDatabase, "exec">, timeoutMs = BUSY_TIMEOUT_MS): void {
  const until = Date.now() + timeoutMs;
  // The project's one retry rule (net/backoff.ts): from 1 ms, doubling to 50 ms, with jitter so two processes
  // refused together do not try again in step.
  const waits = createBackoff({ initialMs: 1, maxMs: 50 });
  for (;;) {
    try {
      db.exec("PRAGMA journal_mode = WAL");
      return;
    } catch (err) {
      if (!isSqliteBusy(err) || Date.now() >= until) throw err;
      sleepSync(waits.next());
    }
  }
}

let pausing: Int32Array | undefined;

/** Blocks this thread for `ms`: opening the database is synchronous, and the lock is another process's. */
function sleepSync(ms: number): void {
  pausing ??= new Int32Array(new SharedArrayBuffer(4));
  Atomics.wait(pausing, 0, 0, ms);
}

export function migrate(db: SqlDatabase): void {
  const current = userVersion(db);
  if (current >= MIGRATIONS.length) return;
  // SQLite's table-rebuild pattern (migration 9) drops a parent table: with foreign keys on, that drop would cascade
  // into its children. They are off while migrations run (the pragma is a no-op inside a transaction, so here) and
  // checked before each migration commits, then restored.
  const enforced = (db.query("PRAGMA foreign_keys").get() as { foreign_keys: number }).foreign_keys === 1;
  if (enforced) db.exec("PRAGMA foreign_keys = OFF");
  try {
    for (let n = current; n < MIGRATIONS.length; n++) {
      db.transaction(() => {
        // Another process opening the same home may have applied it while this one waited for the write lock.
        if (userVersion(db) > n) return;
        db.exec(MIGRATIONS[n]!);
        const broken = db.query("PRAGMA foreign_key_check").all();
        if (broken.length) throw new Error(`memory.db migration ${n + 1} left ${broken.length} broken foreign keys`);
        db.exec(`PRAGMA user_version = ${n + 1}`);
      }).immediate();
    }
  } finally {
    if (enforced) db.exec("PRAGMA foreign_keys = ON");
  }
}

function userVersion(db: SqlDatabase): number {
  return (db.query("PRAGMA user_version").get() as { user_version: number }).user_version;
}
