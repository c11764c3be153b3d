import type { Database as BunDatabase } from "bun:sqlite";
import { nodeModule, onBun } from "./host.ts";

/*
 * SQLite: bun:sqlite on Bun, node:sqlite on Deno, behind the subset of bun:sqlite's API that memory.db
 * uses, so on Bun the database is bun's own object with nothing in between. FTS5 is compiled into both.
 */

export type SqlValue = string | number | bigint | boolean | null | Uint8Array;
/** Named bindings are written `$name` in SQL and given without the `$` (`{ name: "x" }`). */
export type SqlBinding = SqlValue | Record<string, SqlValue>;
export type SqlChanges = { changes: number; lastInsertRowid: number | bigint };

export interface SqlStatement<Row = unknown> {
  get(...params: SqlBinding[]): Row | null;
  all(...params: SqlBinding[]): Row[];
  run(...params: SqlBinding[]): SqlChanges;
}

export interface SqlTransaction<A extends unknown[], T> {
  (...args: A): T;
  /** BEGIN IMMEDIATE: takes the write lock at once, so a busy database waits rather than failing mid-way. */
  immediate(...args: A): T;
}

export interface SqlDatabase {
  /** A prepared statement, cached per SQL text. */
  query<Row = unknown>(sql: string): SqlStatement<Row>;
  run(sql: string, params: SqlValue[]): SqlChanges;
  exec(sql: string): void;
  /** A synchronous function run inside a transaction (a savepoint when nested). */
  transaction<A extends unknown[], T>(fn: (...args: A) => T): SqlTransaction<A, T>;
  close(): void;
}

export type OpenOptions = {
  readonly?: boolean;
  /**
   * Keep the -wal file when the last connection closes (SQLITE_FCNTL_PERSIST_WAL): re-creating it made the
   * first write of every one-shot `fermix ask` cost about a millisecond more. Bun only; node:sqlite has no
   * file control, which costs Deno that millisecond and nothing else.
   */
  persistWal?: boolean;
};

/** SQLITE_BUSY (another connection holds the lock), as bun:sqlite (`code`) and node:sqlite (`errcode` 5) report it. */
export function isSqliteBusy(err: unknown): boolean {
  const { code, errcode } = (err ?? {}) as { code?: unknown; errcode?: unknown };
  return (typeof code === "string" && code.startsWith("SQLITE_BUSY")) || errcode === 5;
}

export function openSqlite(path: string, opts: OpenOptions = {}): SqlDatabase {
  if (onBun) {
    const { Database, constants } = nodeModule<typeof import("bun:sqlite")>("bun:sqlite");
    const db: BunDatabase = opts.readonly
      ? new Database(path, { readonly: true, strict: true })
      : new Database(path, { create: true, strict: true });
    if (opts.persistWal) db.fileControl(constants.SQLITE_FCNTL_PERSIST_WAL, 1);
    return db as unknown as SqlDatabase;
  }
  return nodeSqlite(path, opts);
}

type NodeStatement = {
  get(...params: unknown[]): unknown;
  all(...params: unknown[]): unknown[];
  run(...params: unknown[]): SqlChanges;
  setAllowUnknownNamedParameters?(enabled: boolean): void;
};
type NodeDatabase = { prepare(sql: string): NodeStatement; exec(sql: string): void; close(): void };

function nodeSqlite(path: string, opts: OpenOptions): SqlDatabase {
  const { DatabaseSync } = nodeModule<{ DatabaseSync: new (path: string, o?: object) => NodeDatabase }>("node:sqlite");
  const db = new DatabaseSync(path, { readOnly: opts.readonly ?? false });
  const cache = new Map<string, SqlStatement>();
  let depth = 0;

  function statement<Row>(sql: string): SqlStatement<Row> {
    const prepared = db.prepare(sql);
    // bun:sqlite ignores keys a statement does not name (callers spread whole rows); node:sqlite refuses them.
    prepared.setAllowUnknownNamedParameters?.(true);
    return {
      get: (...params) => (prepared.get(...bindings(params)) as Row | undefined) ?? null,
      all: (...params) => prepared.all(...bindings(params)) as Row[],
      run: (...params) => prepared.run(...bindings(params)),
    };
  }

  function transaction<A extends unknown[], T>(fn: (...args: A) => T, begin: string): (...args: A) => T {
    return (...args) => {
      const savepoint = `fermix_${depth}`;
      db.exec(depth ? `SAVEPOINT ${savepoint}` : begin);
      depth++;
      try {
        const result = fn(...args);
        depth--;
        db.exec(depth ? `RELEASE ${savepoint}` : "COMMIT");
        return result;
      } catch (err) {
        depth--;
        db.exec(depth ? `ROLLBACK TO ${savepoint}; RELEASE ${savepoint}` : "ROLLBACK");
        throw err;
      }
    };
  }

  return {
    query<Row>(sql: string) {
      const cached = cache.get(sql) ?? statement(sql);
      cache.set(sql, cached);
      return cached as SqlStatement<Row>;
    },
    run: (sql, params) => statement(sql).run(...params),
    exec: (sql) => db.exec(sql),
    transaction<A extends unknown[], T>(fn: (...args: A) => T) {
      return Object.assign(transaction(fn, "BEGIN"), { immediate: transaction(fn, "BEGIN IMMEDIATE") });
    },
    close: () => db.close(),
  };
}

/** node:sqlite binds neither booleans nor undefined; bun:sqlite takes booleans as 0/1. */
function bindings(params: SqlBinding[]): unknown[] {
  return params.map((param) => {
    if (param === null || typeof param !== "object" || param instanceof Uint8Array) return value(param);
    const out: Record<string, SqlValue> = {};
    for (const [key, v] of Object.entries(param)) out[key] = value(v);
    return out;
  });
}

function value(v: SqlValue | undefined): SqlValue {
  return v === undefined ? null : typeof v === "boolean" ? Number(v) : v;
}
