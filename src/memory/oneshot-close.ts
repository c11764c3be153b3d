import { fileSizeSync } from "../runtime/files.ts";
import { openSqlite, type SqlDatabase } from "../runtime/sqlite.ts";

/**
 * Past this many bytes of write-ahead log a one-shot process folds it back and empties it on its way out. Every
 * process that opens memory.db first reads the whole log back into its index (measured: ~0.8 ms plus ~0.5 ms a
 * megabyte), while a checkpoint costs its fsyncs (4–9 ms here). An ask adds ~50 KB, so a megabyte checkpoints
 * once in ~20 asks and keeps the reading short: about half a millisecond an ask for both.
 */
export const ONESHOT_WAL_LIMIT_BYTES = 1024 * 1024;

/**
 * Closes a one-shot process's memory.db without the checkpoint SQLite runs when the last connection closes,
 * while the log is small. Nothing is lost: every commit is already in the log (WAL, synchronous=NORMAL, as in
 * the daemon: a crashed process loses nothing), and the next opener, the daemon's timer or SQLite's automatic
 * checkpoint at 1,000 pages folds it back. SQLite checkpoints on close only when it can lock the database file
 * exclusively; Bun's SQLite driver exposes neither SQLITE_DBCONFIG_NO_CKPT_ON_CLOSE nor a way round its own
 * close of every database at exit, so a read-only connection holds its shared lock while the writer closes, and
 * then closes itself: a read-only connection never checkpoints. A log past the limit is checkpointed and emptied
 * instead (journal_size_limit makes the close empty it), so it never grows without bound across one-shot asks: a
 * passive checkpoint leaves the log's frames valid, the next opener reads them all back and counts none as copied.
 */
export function closeLeavingWal(db: SqlDatabase, path: string, held?: SqlDatabase): void {
  if (fileSizeSync(`${path}-wal`) > ONESHOT_WAL_LIMIT_BYTES) {
    held?.close();
    db.exec("PRAGMA journal_size_limit = 0");
    db.close();
    return;
  }
  const holder = held ?? holdSharedLock(path);
  db.close();
  holder?.close();
}

/**
 * The read-only connection closeLeavingWal closes the writer beside, opened ahead of the close (a one-shot ask opens
 * it with memory.db while its first model request is out, lazy-database.ts). Undefined when it cannot be opened:
 * the close then checkpoints as before, slower, never wrong.
 */
export function holdSharedLock(path: string): SqlDatabase | undefined {
  try {
    const holder = openSqlite(path, { readonly: true });
    // A read takes the shared lock, which WAL mode keeps while the connection is open; this one needs no schema.
    holder.query("PRAGMA user_version").get();
    return holder;
  } catch {
    return undefined;
  }
}
