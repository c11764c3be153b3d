import { Database } from "bun:sqlite";
import { describe, expect, test } from "bun:test";
import { join } from "node:path";
import { migrate, openDatabase } from "../../src/memory/db.ts";
import { createMessageStore } from "../../src/memory/messages.ts";
import { MIGRATIONS } from "../../src/memory/migrations.ts";
import type { Message } from "../../src/providers/types.ts";
import { tempHome } from "../fixture/home.ts";

const key = { channel: "cli", chat: "ses_1" };
const user = (text: string): Message => ({ role: "user", content: [{ type: "text", text }] });
const assistant = (text: string): Message => ({ role: "assistant", content: [{ type: "text", text }] });

describe("memory.db", () => {
  test("opens in WAL mode with every migration applied, and migrating again is a no-op", async () => {
    await using h = tempHome();
    const { mkdirSync } = await import("node:fs");
    mkdirSync(h.home, { recursive: true });
    const db = openDatabase(join(h.home, "memory.db"));
    expect((db.query("PRAGMA journal_mode").get() as any).journal_mode).toBe("wal");
    expect((db.query("PRAGMA user_version").get() as any).user_version).toBe(MIGRATIONS.length);
    migrate(db);
    expect((db.query("PRAGMA user_version").get() as any).user_version).toBe(MIGRATIONS.length);
    db.close();
  });

  test("a turn commits together, keyed by conversation, and is searchable", () => {
    const db = new Database(":memory:");
    migrate(db);
    const store = createMessageStore(db, () => 1000);
    store.commitTurn(key, [user("what is FTS5?"), assistant("a full-text index")], {
      turnId: "turn_1",
      provider: "openai",
    });
    store.commitTurn({ ...key, chat: "other" }, [user("elsewhere"), assistant("yes")], { turnId: "turn_2" });
    expect(store.history(key)).toEqual([user("what is FTS5?"), assistant("a full-text index")]);
    const hits = db.query("SELECT rowid FROM messages_fts WHERE messages_fts MATCH 'index'").all();
    expect(hits).toHaveLength(1);
  });

  test("content-less messages are never stored or replayed", () => {
    const db = new Database(":memory:");
    migrate(db);
    const store = createMessageStore(db);
    const stored = store.commitTurn(key, [user("hi"), assistant("   ")], { turnId: "turn_1" });
    expect(stored).toBe(1);
    // A row that somehow holds nothing (written by an older build) is skipped on replay too.
    db.run(
      "INSERT INTO messages (channel, chat, thread, turn_id, role, content, text, created_at) VALUES ('cli','ses_1','','t','assistant',?, '', 0)",
      [JSON.stringify(assistant(""))],
    );
    expect(store.history(key)).toEqual([user("hi")]);
  });

  test("writes that go with a turn share its transaction: one that throws leaves neither behind", () => {
    const db = new Database(":memory:");
    migrate(db);
    db.exec("CREATE TABLE notes (text TEXT)");
    const store = createMessageStore(db);
    const note = (text: string) => () => void db.query("INSERT INTO notes (text) VALUES (?)").run(text);
    store.commitTurn(key, [user("hi"), assistant("hello")], { turnId: "t1", alongside: note("first") });
    const refused = () => {
      note("second")();
      throw new Error("refused");
    };
    expect(() =>
      store.commitTurn(key, [user("more"), assistant("again")], { turnId: "t2", alongside: refused }),
    ).toThrow("refused");
    expect(db.query("SELECT text FROM notes").all()).toEqual([{ text: "first" }]);
    expect(store.history(key)).toEqual([user("hi"), assistant("hello")]);
  });

  test("a failing commit leaves nothing behind", () => {
    const db = new Database(":memory:");
    migrate(db);
    const store = createMessageStore(db);
    const bad = { role: "bogus", content: [{ type: "text", text: "x" }] } as unknown as Message;
    expect(() => store.commitTurn(key, [user("kept?"), bad], { turnId: "t" })).toThrow();
    expect(store.history(key)).toEqual([]);
  });
});
