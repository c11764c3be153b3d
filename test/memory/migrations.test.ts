import { Database } from "bun:sqlite";
import { describe, expect, test } from "bun:test";
import { migrate } from "../../src/memory/db.ts";
import { conversationToken } from "../../src/memory/history-search.ts";
import { MIGRATIONS } from "../../src/memory/migrations.ts";

function fresh(upTo = MIGRATIONS.length): Database {
  const db = new Database(":memory:", { strict: true });
  for (let n = 0; n < upTo; n++) {
    db.exec(MIGRATIONS[n]!);
    db.exec(`PRAGMA user_version = ${n + 1}`);
  }
  return db;
}

const insertFact = (db: Database, values: Record<string, unknown>) =>
  db
    .query(
      `INSERT INTO memories (scope, category, key, value, confidence, source, created_at, updated_at, superseded_by)
       VALUES ($scope, $category, $key, $value, $confidence, 'test', 0, 0, $superseded_by)`,
    )
    .run({
      scope: "owner",
      category: "preference",
      key: "k",
      value: "v",
      confidence: 1,
      superseded_by: null,
      ...values,
    });

describe("migration 4 (memories, resources)", () => {
  test("upgrades a database that has migrations 1-3 and keeps its messages searchable", () => {
    const db = fresh(3);
    db.run(
      "INSERT INTO messages (channel, chat, thread, turn_id, role, content, text, created_at) VALUES ('cli','a','','t','user','{}','hello lisbon',0)",
    );
    migrate(db);
    expect((db.query("PRAGMA user_version").get() as any).user_version).toBe(MIGRATIONS.length);
    const tables = (db.query("SELECT name FROM sqlite_master WHERE type = 'table'").all() as { name: string }[]).map(
      (r) => r.name,
    );
    for (const t of [
      "memories",
      "memories_fts",
      "resources",
      "resource_revisions",
      "memory_state",
      "conversation_trust",
    ])
      expect(tables).toContain(t);
    expect(db.query("SELECT rowid FROM messages_fts WHERE messages_fts MATCH 'lisbon'").all()).toHaveLength(1);
    // The rebuilt index knows each existing message's conversation, and new messages keep it in step.
    const inConversation = (chat: string) =>
      db
        .query("SELECT rowid FROM messages_fts WHERE messages_fts MATCH $q")
        .all({ q: `conversation_key : "${conversationToken({ channel: "cli", chat })}" AND text : lisbon` });
    expect(inConversation("a")).toHaveLength(1);
    db.run(
      "INSERT INTO messages (channel, chat, thread, turn_id, role, content, text, created_at) VALUES ('cli','b','','t','user','{}','lisbon again',0)",
    );
    expect(inConversation("b")).toHaveLength(1);
    db.run("DELETE FROM messages WHERE chat = 'b'");
    expect(inConversation("b")).toHaveLength(0);
    db.run("INSERT INTO messages_fts(messages_fts) VALUES ('integrity-check')");
  });

  test("the category must be one of the six, and confidence between 0 and 1", () => {
    const db = fresh();
    expect(() => insertFact(db, { category: "gossip" })).toThrow(/CHECK/);
    expect(() => insertFact(db, { confidence: 1.5 })).toThrow(/CHECK/);
    for (const category of ["identity", "preference", "interest", "goal", "context", "directive"])
      insertFact(db, { category, key: category });
  });

  test("(scope, key) is unique among live rows only", () => {
    const db = fresh();
    insertFact(db, { key: "color", superseded_by: 99 });
    insertFact(db, { key: "color", superseded_by: 98 });
    insertFact(db, { key: "color" });
    expect(() => insertFact(db, { key: "color" })).toThrow(/UNIQUE/);
    insertFact(db, { key: "color", scope: "job:j1" });
  });

  test("triggers keep memories_fts in step on insert, update and delete", () => {
    const db = fresh();
    insertFact(db, { key: "travel", value: "prefers trains" });
    const match = (q: string) => db.query("SELECT rowid FROM memories_fts WHERE memories_fts MATCH $q").all({ q });
    expect(match("trains")).toHaveLength(1);
    expect(match("travel")).toHaveLength(1);
    db.run("UPDATE memories SET value = 'prefers planes' WHERE key = 'travel'");
    expect(match("trains")).toHaveLength(0);
    expect(match("planes")).toHaveLength(1);
    db.run("DELETE FROM memories");
    expect(match("planes")).toHaveLength(0);
    // The external-content index agrees with its table (FTS5 'integrity-check' throws when it does not).
    db.run("INSERT INTO memories_fts(memories_fts) VALUES ('integrity-check')");
  });

  test("a resource's revision numbers are unique per name", () => {
    const db = fresh();
    const add = (name: string, revision: number) =>
      db.run(
        "INSERT INTO resource_revisions (name, revision, content, reason, created_at) VALUES (?, ?, 'x', 'r', 0)",
        [name, revision],
      );
    add("memory/main/USER.md", 1);
    add("memory/main/MEMORY.md", 1);
    expect(() => add("memory/main/USER.md", 1)).toThrow(/UNIQUE/);
  });
});
