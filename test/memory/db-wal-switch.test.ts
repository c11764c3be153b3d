/**
 * Opening memory.db switches it to WAL, which SQLite may refuse at once with SQLITE_BUSY while another process switches
 * the same fresh file (src/memory/db.ts's switchToWal): the switch is tried again until the lock is free, and only a
 * busy database is waited for.
 */
import { expect, test } from "bun:test";
import { switchToWal } from "../../src/memory/db.ts";

/** A database whose `PRAGMA journal_mode = WAL` fails with `errors`, one per try, then succeeds. */
function refusing(...errors: Error[]) {
  const tried: string[] = [];
  return {
    tried,
    exec(sql: string) {
      tried.push(sql);
      const err = errors.shift();
      if (err) throw err;
    },
  };
}

const busy = () => Object.assign(new Error("database is locked"), { code: "SQLITE_BUSY", errno: 5 });

test("a busy database is tried again until the switch goes through", () => {
  const db = refusing(busy(), busy(), Object.assign(new Error("locked"), { errcode: 5 }));
  switchToWal(db);
  expect(db.tried).toEqual(Array(4).fill("PRAGMA journal_mode = WAL"));
});

test("any other failure is thrown at once", () => {
  const db = refusing(Object.assign(new Error("file is not a database"), { code: "SQLITE_NOTADB" }));
  expect(() => switchToWal(db)).toThrow("file is not a database");
  expect(db.tried).toHaveLength(1);
});

test("a database still busy when the wait is over fails as SQLite said", () => {
  const db = {
    exec: () => {
      throw busy();
    },
  };
  expect(() => switchToWal(db, 30)).toThrow("database is locked");
});
