import type { SqlDatabase, SqlStatement } from "../runtime/sqlite.ts";

/**
 * memory.db with its statements compiled on first use rather than when a store asks for them. The stores prepare
 * every statement they may run as they are built (the memory store a dozen, full-text search included), while a
 * one-shot turn runs a handful: measured, a `fermix ask` compiled 24 statements (~1.4 ms) and ran 9. SQLite's
 * compiled statement is the same whenever it is made; Bun's driver caches it per SQL text as before. A statement
 * with an error in its SQL now throws where it is first run instead of where its store is built.
 */
export function prepareOnUse(db: SqlDatabase): SqlDatabase {
  return {
    query<Row>(sql: string): SqlStatement<Row> {
      let compiled: SqlStatement<Row> | undefined;
      const statement = () => {
        compiled ??= db.query<Row>(sql);
        return compiled;
      };
      return {
        get: (...params) => statement().get(...params),
        all: (...params) => statement().all(...params),
        run: (...params) => statement().run(...params),
      };
    },
    run: (sql, params) => db.run(sql, params),
    exec: (sql) => db.exec(sql),
    transaction: (fn) => db.transaction(fn),
    close: () => db.close(),
  };
}
