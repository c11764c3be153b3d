import { describe, expect, test } from "bun:test";
import { migrate } from "../../src/memory/db.ts";
import { createInboundStore } from "../../src/memory/inbound.ts";
import { createMessageStore } from "../../src/memory/messages.ts";
import type { ConversationKey } from "../../src/memory/messages-contract.ts";
import { conversationScope } from "../../src/memory/scopes.ts";
import { openSqlite, type SqlDatabase } from "../../src/runtime/sqlite.ts";
import { createSessionStore, sessionId } from "../../src/sessions/session-store.ts";

const T0 = Date.parse("2026-03-01T07:00:00Z");

function database() {
  const db = openSqlite(":memory:");
  migrate(db);
  let t = T0;
  const messages = createMessageStore(db, () => t);
  const say = (key: ConversationKey, prompt: string, answer: string) => {
    t += 60_000;
    messages.commitTurn(
      key,
      [
        { role: "user", content: [{ type: "text", text: prompt }] },
        { role: "assistant", content: [{ type: "text", text: answer }] },
      ],
      { turnId: `turn_${t}` },
    );
  };
  return { db, say, store: createSessionStore(db), messages };
}

const count = (db: SqlDatabase, sql: string) => (db.query(sql).get() as { n: number }).n;

describe("session ids", () => {
  test("a fermix ask session is its own id; other conversations are channel:chat[:thread]", () => {
    expect(sessionId({ channel: "cli", chat: "ses_1" })).toBe("ses_1");
    expect(sessionId({ channel: "telegram", chat: "-100200" })).toBe("telegram:-100200");
    expect(sessionId({ channel: "slack", chat: "C1", thread: "17.5" })).toBe("slack:C1:17.5");
    // Never read as another channel's id.
    expect(sessionId({ channel: "cli", chat: "telegram:1" })).toBe("cli:telegram:1");
  });

  test("resolve takes what list shows, and the bare id `ask -s` was given", () => {
    const { say, store } = database();
    say({ channel: "cli", chat: "telegram:1" }, "a cli session named like a chat", "ok");
    say({ channel: "telegram", chat: "1" }, "a telegram chat", "ok");
    say({ channel: "slack", chat: "C1", thread: "17.5" }, "in a thread", "ok");
    say({ channel: "whatsapp", chat: "49151@s.whatsapp.net" }, "hi", "ok");
    const ids = store.list({ limit: 20 }).map((s) => s.id);
    expect(ids).toEqual(["whatsapp:49151@s.whatsapp.net", "slack:C1:17.5", "telegram:1", "cli:telegram:1"]);
    for (const id of ids) expect(store.resolve(id).map((s) => s.id)).toContain(id);
    expect(store.resolve("slack:C1:17.5")[0]).toMatchObject({ channel: "slack", chat: "C1", thread: "17.5" });
    // `telegram:1` could be either; the exact id is among them, which the CLI prefers.
    expect(store.resolve("telegram:1").map((s) => s.id)).toEqual(["telegram:1", "cli:telegram:1"]);
    expect(store.resolve("nope")).toEqual([]);
    expect(store.resolve("slack:C1")).toEqual([]);
  });
});

describe("the session store", () => {
  test("list: newest activity first, titled by the first prompt, counted, filtered by channel", () => {
    const { say, store, messages } = database();
    say({ channel: "cli", chat: "a" }, `  a long\nfirst prompt ${"x".repeat(80)}`, "one");
    say({ channel: "telegram", chat: "7" }, "hello", "hi");
    say({ channel: "cli", chat: "a" }, "second prompt", "two");
    messages.commitTurn(
      { channel: "cron", chat: "run_1" },
      [{ role: "assistant", content: [{ type: "text", text: "report" }] }],
      { turnId: "t" },
    );
    const all = store.list({ limit: 20 });
    expect(all.map((s) => [s.id, s.messages])).toEqual([
      ["cron:run_1", 1],
      ["a", 4],
      ["telegram:7", 2],
    ]);
    expect(all[0]!.title).toBe("(no prompt)");
    expect(all[1]!.title).toHaveLength(60);
    expect(all[1]!.title).toStartWith("a long first prompt xxx");
    expect(all[1]!.title).toEndWith("…");
    expect(all[1]).toMatchObject({ created_at: "2026-03-01T07:01:00.000Z", updated_at: "2026-03-01T07:03:00.000Z" });
    expect(store.list({ limit: 1 }).map((s) => s.id)).toEqual(["cron:run_1"]);
    expect(store.list({ channel: "cli", limit: 20 }).map((s) => s.id)).toEqual(["a"]);
  });

  test("search: one line per session, best first, filtered by channel; a query without words is an error", () => {
    const { say, store } = database();
    say({ channel: "cli", chat: "a" }, "tell me about lisbon", "Lisbon is hilly.");
    say({ channel: "telegram", chat: "7" }, "lisbon trams?", "Tram 28 crosses Lisbon, lisbon, lisbon.");
    say({ channel: "cli", chat: "b" }, "porto", "Porto has bridges.");
    const hits = store.search("lisbon", { limit: 10 });
    expect("error" in hits ? hits : hits.map((h) => h.id)).toEqual(["telegram:7", "a"]);
    expect(store.search("lisbon", { channel: "cli", limit: 10 })).toEqual([
      expect.objectContaining({ id: "a", snippet: expect.stringMatching(/lisbon/i) }),
    ]);
    expect(store.search("lisbon", { limit: 1 })).toHaveLength(1);
    expect(store.search("?!", { limit: 10 })).toEqual({ error: "the query has no words to search for" });
  });

  test("messages: text, tool calls and their results, in order", () => {
    const { db, store } = database();
    createMessageStore(db, () => T0).commitTurn(
      { channel: "cli", chat: "a" },
      [
        { role: "user", content: [{ type: "text", text: "read it" }] },
        { role: "assistant", content: [{ type: "tool_call", id: "c1", name: "file_read", arguments: { path: "/x" } }] },
        { role: "tool", toolCallId: "c1", toolName: "file_read", content: "denied", isError: true },
        { role: "assistant", content: [{ type: "text", text: "I could not." }] },
      ],
      { turnId: "t", model: "m1" },
    );
    const [session] = store.resolve("a");
    expect(store.messages(session!)).toEqual([
      { role: "user", text: "read it", created_at: "2026-03-01T07:00:00.000Z" },
      {
        role: "assistant",
        text: "",
        created_at: "2026-03-01T07:00:00.000Z",
        tool_calls: [{ id: "c1", name: "file_read", arguments: { path: "/x" } }],
        model: "m1",
      },
      {
        role: "tool",
        text: "denied",
        created_at: "2026-03-01T07:00:00.000Z",
        tool_call_id: "c1",
        tool_name: "file_read",
        is_error: true,
      },
      { role: "assistant", text: "I could not.", created_at: "2026-03-01T07:00:00.000Z", model: "m1" },
    ]);
  });

  test("remove: the conversation and everything kept under its key, nothing of another's", () => {
    const { db, say, store, messages } = database();
    const gone = { channel: "telegram", chat: "7" };
    const other = { channel: "telegram", chat: "8" };
    const inbound = createInboundStore(db, () => T0);
    for (const key of [gone, other]) {
      say(key, `zebra in ${key.chat}`, "ok");
      messages.saveSummary(key, 1, "summary");
      db.query(
        "INSERT INTO conversation_trust (channel, chat, thread, trust, last_seen_at) VALUES ($channel, $chat, '', 'operator', 1)",
      ).run(key);
      db.query(
        "INSERT INTO approvals (token_hash, path, reason, channel, chat, expires_at) VALUES ($hash, '/x', 'r', $channel, $chat, 1)",
      ).run({ ...key, hash: `h${key.chat}` });
      db.query(
        "INSERT INTO memories (scope, category, key, value, source, created_at, updated_at) VALUES ($scope, 'context', 'k', 'v', 's', 1, 1)",
      ).run({ scope: conversationScope(key) });
      const answered = inbound.store({ ...key, platformId: "p1", sender: "s", text: "zebra" })!;
      inbound.settle([answered], "answered");
      inbound.store({ ...key, platformId: "p2", sender: "s", text: "still waiting" });
    }
    const [session] = store.resolve("telegram:7");
    expect(store.remove(session!)).toBe(2);
    expect(store.resolve("telegram:7")).toEqual([]);
    for (const [table, left] of [
      ["messages", 2],
      ["summaries", 1],
      ["conversation_trust", 1],
      ["approvals", 1],
      ["memories", 1],
      // The other chat's two, and the message the removed chat is still answering.
      ["inbound_messages", 3],
    ] as const) {
      expect([table, count(db, `SELECT COUNT(*) AS n FROM ${table}`)]).toEqual([table, left]);
    }
    expect(count(db, "SELECT COUNT(*) AS n FROM inbound_messages WHERE chat = '7' AND state = 'pending'")).toBe(1);
    expect(count(db, "SELECT COUNT(*) AS n FROM messages_fts WHERE messages_fts MATCH 'zebra'")).toBe(1);
    expect(count(db, "SELECT COUNT(*) AS n FROM memories_fts")).toBe(1);
  });
});
