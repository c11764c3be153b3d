import { createSessionStore, type SessionStore } from "../sessions/session-store.ts";
import { withLocalDatabase } from "./_local-db.ts";

/**
 * memory.db for one `fermix sessions` command, whether or not a daemon runs. Unlike a job's state, a session has
 * nothing the daemon holds and the database does not: a turn is stored by one commit, and memory.db is in WAL mode,
 * so a reader here sees every turn the daemon has committed — the running daemon's state, without a route.
 *
 * `rm` writes here too, beside a running daemon, and that is safe: the daemon keeps no copy of a conversation (each
 * turn reads its window from the database), both connections wait on SQLite's lock (busy_timeout) rather than fail,
 * and the delete is one BEGIN IMMEDIATE transaction of a few index-range deletes, so the daemon's next commit waits
 * milliseconds. A turn still running in that conversation commits after the delete and starts it again, as it would
 * have if the daemon had done the deleting. The schema is never migrated from here: that is the daemon's (or the
 * next `fermix ask`'s) to do, and a missing table is read as an empty one.
 */
export function withSessionDatabase<T>(mode: "read" | "write", use: (store: SessionStore) => T): T {
  return withLocalDatabase({ mode, table: "messages_fts" }, (db) => use(createSessionStore(db)));
}
