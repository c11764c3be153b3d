import { existsSync, mkdirSync } from "node:fs";
import { dirname } from "node:path";
import type { SqlDatabase } from "../runtime/sqlite.ts";
import { startBackgroundCheckpoints } from "./background-checkpoints.ts";
import { openDatabase } from "./db.ts";
import { closeLeavingWal, holdSharedLock } from "./oneshot-close.ts";
import { prepareOnUse } from "./prepare-on-use.ts";

/**
 * memory.db opened on first use, so a command that fails before it needs the database (no provider
 * configured, a usage error) writes nothing to FERMIX_HOME.
 */
export function lazyDatabase(
  path: string,
  opts: {
    /**
     * The daemon checkpoints on a timer (background-checkpoints.ts); a one-shot process leaves a small log for
     * the next opener instead of checkpointing on close (oneshot-close.ts). Neither: SQLite's own close.
     */
    role?: "daemon" | "oneshot";
    onError?: (err: Error) => void;
  } = {},
): { get(): SqlDatabase; warmWhileWaiting(): void; opened(): boolean; close(): void } {
  let db: SqlDatabase | undefined;
  let shared: SqlDatabase | undefined;
  let checkpoints: ReturnType<typeof startBackgroundCheckpoints> | undefined;
  let closed = false;
  // A one-shot process's read-only connection for closeLeavingWal, opened with the warm-up.
  let holder: SqlDatabase | undefined;
  const get = (): SqlDatabase => {
    if (!db) {
      mkdirSync(dirname(path), { recursive: true, mode: 0o700 });
      db = openDatabase(path);
      if (opts.role === "daemon") checkpoints = startBackgroundCheckpoints(db, { onError: opts.onError });
      shared = prepareOnUse(db);
    }
    return shared!;
  };
  return {
    get,
    /**
     * A one-shot process's memory.db, opened now when it already exists: called while its first model request is
     * out, the thread's one idle moment, so the commit after the answer does not wait the ~5 ms an open takes, nor
     * the close the ~1 ms its read-only holder takes (issue 31). A database not made yet stays so (an ask that fails
     * writes nothing to FERMIX_HOME), and one that fails to open is left for get() to raise where it belongs. The
     * daemon's opens on first use.
     */
    warmWhileWaiting: () => {
      if (opts.role !== "oneshot" || db || closed || !existsSync(path)) return;
      try {
        get();
        holder = holdSharedLock(path);
      } catch {
        // get() raises it again at the first real use.
      }
    },
    opened: () => db !== undefined,
    close: () => {
      checkpoints?.stop();
      if (db && opts.role === "oneshot" && !closed) closeLeavingWal(db, path, holder);
      else db?.close();
      closed = db !== undefined;
    },
  };
}
