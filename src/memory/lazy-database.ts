import { mkdirSync } from "node:fs";
import { dirname } from "node:path";
import type { SqlDatabase } from "../runtime/sqlite.ts";
import { startBackgroundCheckpoints } from "./background-checkpoints.ts";
import { openDatabase } from "./db.ts";

/**
 * memory.db opened on first use, so a command that fails before it needs the database (no provider
 * configured, a usage error) writes nothing to FERMIX_HOME.
 */
export function lazyDatabase(
  path: string,
  opts: { backgroundCheckpoints?: boolean; onError?: (err: Error) => void } = {},
): { get(): SqlDatabase; opened(): boolean; close(): void } {
  let db: SqlDatabase | undefined;
  let checkpoints: ReturnType<typeof startBackgroundCheckpoints> | undefined;
  return {
    get() {
      if (!db) {
        mkdirSync(dirname(path), { recursive: true, mode: 0o700 });
        db = openDatabase(path);
        if (opts.backgroundCheckpoints) checkpoints = startBackgroundCheckpoints(db, { onError: opts.onError });
      }
      return db;
    },
    opened: () => db !== undefined,
    close: () => {
      checkpoints?.stop();
      db?.close();
    },
  };
}
