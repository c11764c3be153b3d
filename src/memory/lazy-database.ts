import { mkdirSync } from "node:fs";
import { dirname } from "node:path";
import type { SqlDatabase } from "../runtime/sqlite.ts";
import { startBackgroundCheckpoints } from "./background-checkpoints.ts";
import { openDatabase } from "./db.ts";
import { closeLeavingWal } from "./oneshot-close.ts";
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
): { get(): SqlDatabase; opened(): boolean; close(): void } {
  let db: SqlDatabase | undefined;
  let shared: SqlDatabase | undefined;
  let checkpoints: ReturnType<typeof startBackgroundCheckpoints> | undefined;
  let closed = false;
  return {
    get() {
      if (!db) {
        mkdirSync(dirname(path), { recursive: true, mode: 0o700 });
        db = openDatabase(path);
        if (opts.role === "daemon") checkpoints = startBackgroundCheckpoints(db, { onError: opts.onError });
        shared = prepareOnUse(db);
      }
      return shared!;
    },
    opened: () => db !== undefined,
    close: () => {
      checkpoints?.stop();
      if (db && opts.role === "oneshot" && !closed) closeLeavingWal(db, path);
      else db?.close();
      closed = db !== undefined;
    },
  };
}
