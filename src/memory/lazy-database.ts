import { mkdirSync } from "node:fs";
import { dirname } from "node:path";
import type { SqlDatabase } from "../runtime/sqlite.ts";
import { openDatabase } from "./db.ts";

/**
 * memory.db opened on first use, so a command that fails before it needs the database (no provider
 * configured, a usage error) writes nothing to FERMIX_HOME.
 */
export function lazyDatabase(path: string): { get(): SqlDatabase; opened(): boolean; close(): void } {
  let db: SqlDatabase | undefined;
  return {
    get() {
      if (!db) {
        mkdirSync(dirname(path), { recursive: true, mode: 0o700 });
        db = openDatabase(path);
      }
      return db;
    },
    opened: () => db !== undefined,
    close: () => db?.close(),
  };
}
