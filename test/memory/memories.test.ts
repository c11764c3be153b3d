import { Database } from "bun:sqlite";
import { describe, expect, test } from "bun:test";
import { migrate } from "../../src/memory/db.ts";
import { ftsQuery } from "../../src/memory/fts-query.ts";
import { conversationToken, RANK_WINDOW } from "../../src/memory/history-search.ts";
import { createMemoryStore } from "../../src/memory/memories.ts";
import type { RecallHit } from "../../src/memory/memories-contract.ts";
import { createMessageStore } from "../../src/memory/messages.ts";
import { conversationScope, describeScope, isScope, jobScope } from "../../src/memory/scopes.ts";
import type { Message } from "../../src/providers/types.ts";

const user = (text: string): Message => ({ role: "user", content: [{ type: "text", text }] });
const assistant = (text: string): Message => ({ role: "assistant", content: [{ type: "text", text }] });

function setup() {
  const db = new Database(":memory:", { strict: true });
  migrate(db);
  let t = 1_700_000_000_000;
  const now = () => t;
  const memory = createMemoryStore(db, now);
  const messages = createMessageStore(db, now);
  return { db, memory, messages, advance: (ms: number) => (t += ms) };
}

const fact = (key: string, value: string, extra: Record<string, unknown> = {}) => ({
  scope: "owner",
  category: "preference" as const,
  key,
  value,
  source: "test",
  ...extra,
});

const keysOf = (hits: RecallHit[]) => hits.map((h) => (h.from === "memory" ? h.key : `#${h.messageId}`));

describe("storing facts", () => {
  test("a new value under the same key replaces the live fact and keeps the old one as superseded", () => {
    const { db, memory, advance } = setup();
    const first = memory.store(fact("Favorite color", "blue"));
    advance(1000);
    const second = memory.store(fact("favorite  COLOR", "green", { confidence: 0.7 }));
    expect(first).toMatchObject({ ok: true, status: "created", fact: { key: "favorite_color" } });
    expect(second).toMatchObject({
      ok: true,
      status: "replaced",
      fact: { value: "green" },
      previous: { value: "blue" },
    });
    expect(memory.liveFacts("owner").map((f) => [f.key, f.value, f.confidence])).toEqual([
      ["favorite_color", "green", 0.7],
    ]);
    const rows = db.query("SELECT value, superseded_by FROM memories ORDER BY id").all() as any[];
    expect(rows).toEqual([
      { value: "blue", superseded_by: (second as any).fact.id },
      { value: "green", superseded_by: null },
    ]);
  });

  test("the same value again only refreshes the fact", () => {
    const { db, memory, advance } = setup();
    memory.store(fact("editor", "helix"));
    advance(5000);
    const again = memory.store(fact("editor", "helix", { source: "later" }));
    expect(again).toMatchObject({ ok: true, status: "unchanged", fact: { source: "later" } });
    expect((db.query("SELECT COUNT(*) AS n FROM memories").get() as any).n).toBe(1);
    expect(memory.liveFacts("owner")[0]!.updatedAt).toBe(memory.liveFacts("owner")[0]!.createdAt + 5000);
  });

  test("the same key in another scope is another fact", () => {
    const { memory } = setup();
    const guest = conversationScope({ channel: "telegram", chat: "42" });
    memory.store(fact("name", "Ada"));
    memory.store(fact("name", "Mallory", { scope: guest }));
    expect(memory.liveFacts("owner").map((f) => f.value)).toEqual(["Ada"]);
    expect(memory.liveFacts(guest).map((f) => f.value)).toEqual(["Mallory"]);
  });

  test("bad input is an error result and writes nothing", () => {
    const { db, memory } = setup();
    expect(memory.store(fact("k", "v", { scope: "everyone" }))).toMatchObject({ ok: false });
    expect(memory.store(fact("k", "v", { category: "gossip" }))).toMatchObject({ ok: false });
    expect(memory.store(fact("   ", "v"))).toMatchObject({ ok: false });
    expect(memory.store(fact("k", "x".repeat(2001)))).toMatchObject({ ok: false });
    expect(memory.store(fact("k", "v", { confidence: 2 }))).toMatchObject({ ok: false });
    expect((db.query("SELECT COUNT(*) AS n FROM memories").get() as any).n).toBe(0);
  });

  test("retire ends a fact without a successor", () => {
    const { memory } = setup();
    memory.store(fact("trip", "Lisbon in May"));
    expect(memory.retire("owner", "Trip")).toBe(true);
    expect(memory.retire("owner", "trip")).toBe(false);
    expect(memory.liveFacts("owner")).toEqual([]);
    expect(memory.recall({ scopes: ["owner"], query: "lisbon", source: "memories", limit: 5 })).toMatchObject({
      ok: true,
      hits: [],
    });
    // The key is free again.
    expect(memory.store(fact("trip", "Porto in June"))).toMatchObject({ ok: true, status: "created" });
  });
});

describe("recall", () => {
  test("key lookup finds the live fact, only in the given scopes", () => {
    const { memory } = setup();
    memory.store(fact("editor", "vim"));
    memory.store(fact("editor", "helix"));
    memory.store(fact("editor", "emacs", { scope: "job:j1" }));
    const owner = memory.recall({ scopes: ["owner"], key: "Editor", source: "memories", limit: 10 });
    expect(owner).toMatchObject({ ok: true, mode: "key", hits: [{ from: "memory", value: "helix", scope: "owner" }] });
    const job = memory.recall({ scopes: ["job:j1"], key: "editor", source: "all", limit: 10 });
    expect(job).toMatchObject({ ok: true, hits: [{ value: "emacs" }] });
    expect(memory.recall({ scopes: [], key: "editor", source: "all", limit: 10 })).toMatchObject({ hits: [] });
    expect(memory.recall({ scopes: ["owner"], key: "editor", source: "history", limit: 10 }).ok).toBe(false);
  });

  test("full-text search ranks by bm25 and returns only live facts", () => {
    const { memory } = setup();
    memory.store(fact("travel", "prefers night trains over planes"));
    memory.store(fact("commute", "takes the train to work"));
    memory.store(fact("food", "vegetarian"));
    memory.store(fact("old_trip", "trains in Portugal"));
    memory.store(fact("old_trip", "ferries in Greece"));
    const result = memory.recall({ scopes: ["owner"], query: "night trains", source: "memories", limit: 10 });
    expect(result.ok).toBe(true);
    if (!result.ok) return;
    expect(result.mode).toBe("search");
    expect(keysOf(result.hits)).toEqual(["travel"]);
    const prefix = memory.recall({ scopes: ["owner"], query: "train*", source: "memories", limit: 10 });
    expect(prefix.ok && keysOf(prefix.hits).sort()).toEqual(["commute", "travel"]);
  });

  test("history search joins back to messages, with each hit's conversation, and skips tool output", () => {
    const { memory, messages } = setup();
    const cli = { channel: "cli", chat: "ses_1" };
    const tg = { channel: "telegram", chat: "42", thread: "7" };
    messages.commitTurn(cli, [user("book the Lisbon hotel"), assistant("Booked the hotel in Lisbon.")], {
      turnId: "t1",
    });
    messages.commitTurn(tg, [user("Lisbon is lovely in spring")], { turnId: "t2" });
    messages.commitTurn(
      cli,
      [{ role: "tool", toolCallId: "c1", toolName: "file_read", content: "lisbon lisbon lisbon" }],
      {
        turnId: "t3",
      },
    );
    const all = memory.recall({
      scopes: ["owner"],
      query: "lisbon",
      source: "history",
      historyConversations: "all",
      limit: 10,
    });
    expect(all.ok).toBe(true);
    if (!all.ok) return;
    expect(all.hits).toHaveLength(3);
    expect(all.hits.every((h) => h.from === "history")).toBe(true);
    const fromTg = all.hits.find((h) => h.from === "history" && h.conversation.channel === "telegram");
    expect(fromTg).toMatchObject({ conversation: tg, role: "user", snippet: "Lisbon is lovely in spring" });

    const one = memory.recall({
      scopes: [],
      query: "lisbon hotel",
      source: "all",
      historyConversations: [cli],
      limit: 10,
    });
    expect(one.ok && one.hits.map((h) => h.from === "history" && h.conversation.chat)).toEqual(["ses_1", "ses_1"]);
    const two = memory.recall({
      scopes: [],
      query: "lisbon",
      source: "history",
      historyConversations: [cli, tg],
      limit: 10,
    });
    expect(two.ok && two.hits).toHaveLength(3);
    const none = memory.recall({ scopes: [], query: "lisbon", source: "history", historyConversations: [], limit: 10 });
    expect(none).toMatchObject({ ok: true, hits: [] });
  });

  test("a long list of conversations is filtered too, and a conversation's token is the one the schema computes", () => {
    const { db, memory, messages } = setup();
    const keys = Array.from({ length: 40 }, (_, i) => ({
      channel: "telegram",
      chat: `Café ☕ ${i}`,
      thread: i % 2 ? "t:1" : "",
    }));
    for (const key of keys) messages.commitTurn(key, [user(`coffee order ${key.chat}`)], { turnId: "t" });
    messages.commitTurn({ channel: "telegram", chat: "outsider" }, [user("coffee order outsider")], { turnId: "t" });
    for (const key of keys.slice(0, 2)) {
      const row = db
        .query("SELECT conversation_key FROM messages WHERE channel = $channel AND chat = $chat AND thread = $thread")
        .get({ channel: key.channel, chat: key.chat, thread: key.thread }) as { conversation_key: string };
      expect(conversationToken(key)).toBe(row.conversation_key);
    }
    const chats = (filter: typeof keys) => {
      const r = memory.recall({
        scopes: [],
        query: "coffee",
        source: "history",
        historyConversations: filter,
        limit: 50,
      });
      return r.ok ? r.hits.map((h) => (h.from === "history" ? h.conversation.chat : "")).sort() : [];
    };
    expect(chats(keys)).toEqual(keys.map((k) => k.chat).sort());
    expect(chats(keys.slice(3, 5))).toEqual([keys[3]!.chat, keys[4]!.chat]);
  });

  test("when very many messages match, only the newest window of them is ranked", () => {
    const { memory, messages } = setup();
    const key = { channel: "cli", chat: "busy" };
    // The oldest message is the best match, but RANK_WINDOW newer ones match too.
    messages.commitTurn(key, [user("zebra zebra zebra zebra")], { turnId: "t0" });
    for (let i = 0; i < RANK_WINDOW; i++)
      messages.commitTurn(key, [user(`zebra crossing number ${i}`)], { turnId: `t${i}` });
    for (const filter of ["all", [key]] as const) {
      const r = memory.recall({
        scopes: [],
        query: "zebra",
        source: "history",
        historyConversations: filter,
        limit: 5,
      });
      expect(r.ok && r.hits).toHaveLength(5);
      expect(r.ok && r.hits.some((h) => h.from === "history" && h.snippet.startsWith("zebra zebra"))).toBe(false);
    }
  });

  test('"owner" history reads only the conversations the operator took part in', () => {
    const { memory, messages } = setup();
    const mine = { channel: "cli", chat: "ses_1" };
    const theirs = { channel: "telegram", chat: "99" };
    messages.commitTurn(mine, [user("the launch is on friday")], { turnId: "t1" });
    messages.commitTurn(theirs, [user("my launch is on monday")], { turnId: "t2" });
    memory.noteConversation(mine, "operator");
    memory.noteConversation(theirs, "guest");
    memory.noteConversation(mine, "operator");
    const r = memory.recall({
      scopes: ["owner"],
      query: "launch",
      source: "history",
      historyConversations: "owner",
      limit: 10,
    });
    expect(r.ok && r.hits.map((h) => h.from === "history" && h.conversation.chat)).toEqual(["ses_1"]);
  });

  test("memories and history are merged, facts first, and cut at the limit", () => {
    const { memory, messages } = setup();
    memory.store(fact("dentist", "dentist appointment every March", { category: "context" }));
    for (let i = 0; i < 5; i++)
      messages.commitTurn({ channel: "cli", chat: `s${i}` }, [user(`dentist call ${i}`)], { turnId: "t" });
    const r = memory.recall({
      scopes: ["owner"],
      query: "dentist",
      source: "all",
      historyConversations: "all",
      limit: 3,
    });
    expect(r.ok && r.hits.map((h) => h.from)).toEqual(["memory", "history", "history"]);
  });

  test("with no query and no key, the most recent facts come back", () => {
    const { memory, advance } = setup();
    memory.store(fact("a", "1"));
    advance(10);
    memory.store(fact("b", "2"));
    const r = memory.recall({ scopes: ["owner"], source: "all", limit: 10 });
    expect(r).toMatchObject({ ok: true, mode: "recent" });
    expect(r.ok && keysOf(r.hits)).toEqual(["b", "a"]);
    expect(memory.recall({ scopes: ["owner"], source: "history", historyConversations: "all", limit: 10 }).ok).toBe(
      false,
    );
  });

  test("FTS5 syntax in the query is searched as words, never raised as an error", () => {
    const { memory, messages } = setup();
    memory.store(fact("quote", 'said "hello" NEAR the door'));
    messages.commitTurn({ channel: "cli", chat: "s" }, [user("column: value AND (hello OR")], { turnId: "t" });
    const nasty = [
      '"unbalanced',
      "hello AND",
      "NEAR(hello door",
      "col:hello",
      "^hello",
      "hello OR OR",
      "(((",
      "*",
      "-hello",
      "hello'); DROP TABLE memories; --",
      "key:value value:key",
      "\u0000\u0001",
    ];
    for (const query of nasty) {
      let result: ReturnType<typeof memory.recall> | undefined;
      expect(() => {
        result = memory.recall({ scopes: "all", query, source: "all", historyConversations: "all", limit: 10 });
      }).not.toThrow();
      if (result!.ok) continue;
      expect(result!.error).toBe("the query has no words to search for");
    }
    const r = memory.recall({
      scopes: "all",
      query: "hello AND",
      source: "all",
      historyConversations: "all",
      limit: 10,
    });
    expect(r.ok && r.hits).toHaveLength(2);
  });

  test("limit is clamped to 1..50", () => {
    const { memory } = setup();
    for (let i = 0; i < 60; i++) memory.store(fact(`k${i}`, "shared word"));
    const many = memory.recall({ scopes: ["owner"], query: "shared", source: "memories", limit: 500 });
    expect(many.ok && many.hits).toHaveLength(50);
    const few = memory.recall({ scopes: ["owner"], query: "shared", source: "memories", limit: 0 });
    expect(few.ok && few.hits).toHaveLength(1);
  });

  test("sources counts live facts per scope and category, and the history", () => {
    const { memory, messages } = setup();
    memory.store(fact("a", "1"));
    memory.store(fact("a", "2"));
    memory.store(fact("b", "1", { category: "goal" }));
    memory.store(fact("c", "1", { scope: "job:j1", category: "context" }));
    messages.commitTurn({ channel: "cli", chat: "x" }, [user("hi"), assistant("hello")], { turnId: "t" });
    expect(memory.sources()).toEqual({
      memories: [
        { scope: "job:j1", category: "context", count: 1 },
        { scope: "owner", category: "goal", count: 1 },
        { scope: "owner", category: "preference", count: 1 },
      ],
      history: { conversations: 1, messages: 2 },
    });
  });
});

describe("FTS query text", () => {
  test("terms are quoted and OR-ed, stopwords dropped unless they are all there is", () => {
    expect(ftsQuery("What did we say about the Lisbon trip?")).toEqual({
      ok: true,
      match: '"say" OR "about" OR "lisbon" OR "trip"',
      terms: ["say", "about", "lisbon", "trip"],
    });
    expect(ftsQuery("to be or not")).toMatchObject({ ok: true, terms: ["to", "be", "or", "not"] });
    expect(ftsQuery("lisb* favorite_color")).toMatchObject({ match: '"lisb"* OR "favorite_color"' });
    expect(ftsQuery("?!")).toEqual({ ok: false, error: "the query has no words to search for" });
  });
});

describe("scope names", () => {
  test("a ':' inside an id cannot make two conversation scopes collide", () => {
    const a = conversationScope({ channel: "a:b", chat: "c" });
    const b = conversationScope({ channel: "a", chat: "b:c" });
    expect(a).not.toBe(b);
    expect(isScope(a) && isScope(b) && isScope(jobScope("job_1")) && isScope("owner")).toBe(true);
    expect(isScope("conversation:a")).toBe(false);
    expect(describeScope(conversationScope({ channel: "telegram", chat: "42", thread: "7" }))).toBe(
      "conversation telegram:42:7",
    );
  });
});
