import { Database } from "bun:sqlite";
import { describe, expect, test } from "bun:test";
import { migrate } from "../../src/memory/db.ts";
import { createMemoryStore } from "../../src/memory/memories.ts";
import type { RecallHit, RecallSource } from "../../src/memory/memories-contract.ts";
import { createMessageStore } from "../../src/memory/messages.ts";
import { effectiveScope, type MemoryCaller, type RequestedScope } from "../../src/memory/recall-scope.ts";
import { conversationScope, jobScope, OWNER_SCOPE } from "../../src/memory/scopes.ts";
import type { Message } from "../../src/providers/types.ts";

const user = (text: string): Message => ({ role: "user", content: [{ type: "text", text }] });

const OWNER_CHAT = { channel: "cli", chat: "ses_owner" };
const GUEST = { channel: "telegram", chat: "42" };
const OTHER_GUEST = { channel: "telegram", chat: "43" };
const GUEST_THREAD = { channel: "telegram", chat: "42", thread: "9" };

/** The owner, two guests and a job each hold a fact and a message under the same words. */
function world() {
  const db = new Database(":memory:", { strict: true });
  migrate(db);
  const memory = createMemoryStore(db, () => 1_700_000_000_000);
  const messages = createMessageStore(db, () => 1_700_000_000_000);
  const put = (scope: string, value: string) =>
    memory.store({ scope, category: "identity", key: "passport", value, source: "test" });
  put(OWNER_SCOPE, "owner secret passport 111");
  put(conversationScope(GUEST), "guest secret passport 222");
  put(conversationScope(OTHER_GUEST), "other secret passport 333");
  put(conversationScope(GUEST_THREAD), "thread secret passport 444");
  put(jobScope("job_1"), "job secret passport 555");
  messages.commitTurn(OWNER_CHAT, [user("owner secret passport message")], { turnId: "t1" });
  messages.commitTurn(GUEST, [user("guest secret passport message")], { turnId: "t2" });
  messages.commitTurn(OTHER_GUEST, [user("other secret passport message")], { turnId: "t3" });
  messages.commitTurn(GUEST_THREAD, [user("thread secret passport message")], { turnId: "t4" });
  memory.noteConversation(OWNER_CHAT, "operator");
  memory.noteConversation(GUEST, "guest");
  memory.noteConversation(OTHER_GUEST, "guest");
  return { memory };
}

const SCOPES: (RequestedScope | undefined)[] = [undefined, "current", "owner", "all"];
const SOURCES: RecallSource[] = ["memories", "history", "all"];
const KEYS = [undefined, "passport", "PASSPORT", "owner", "conversation:cli:ses_owner:", "*"];
const QUERIES = [
  undefined,
  "",
  "secret",
  "passport*",
  "owner",
  "other thread job",
  "owner OR other",
  '"owner" *',
  "111",
];

function recallAs(memory: ReturnType<typeof world>["memory"], caller: MemoryCaller, args: Record<string, any>) {
  const scope = effectiveScope(caller, args.scope);
  return memory.recall({
    scopes: scope.memoryScopes,
    key: args.key,
    query: args.query,
    source: args.source,
    historyConversations: scope.history,
    limit: 50,
  });
}

/** What a hit reveals: its text. The guest's own texts carry "guest"; everyone else's do not. */
const textOf = (hit: RecallHit) => (hit.from === "memory" ? `${hit.scope} ${hit.value}` : hit.snippet);

describe("effective recall scope", () => {
  test("an operator picks between this conversation, the owner's and everything", () => {
    const op: MemoryCaller = { trust: "operator", conversation: OWNER_CHAT };
    expect(effectiveScope(op)).toMatchObject({
      granted: "current",
      memoryScopes: [OWNER_SCOPE, conversationScope(OWNER_CHAT)],
      history: [OWNER_CHAT],
      writeScope: OWNER_SCOPE,
    });
    expect(effectiveScope(op, "owner")).toMatchObject({ memoryScopes: [OWNER_SCOPE], history: "owner" });
    expect(effectiveScope(op, "all")).toMatchObject({ memoryScopes: "all", history: "all", narrowed: false });
  });

  test("a guest gets its own conversation whatever it asks, and is told it was narrowed", () => {
    const guest: MemoryCaller = { trust: "guest", conversation: GUEST };
    for (const requested of SCOPES) {
      expect(effectiveScope(guest, requested)).toEqual({
        granted: "guest",
        memoryScopes: [conversationScope(GUEST)],
        history: [GUEST],
        writeScope: conversationScope(GUEST),
        narrowed: requested === "owner" || requested === "all",
      });
    }
  });

  test("a job reads and writes its own job memory only, whatever its trust", () => {
    for (const trust of ["operator", "guest"] as const) {
      const job: MemoryCaller = { trust, jobId: "job_1", conversation: OWNER_CHAT };
      for (const requested of SCOPES) {
        expect(effectiveScope(job, requested)).toMatchObject({
          granted: "job",
          memoryScopes: [jobScope("job_1")],
          history: [],
          writeScope: jobScope("job_1"),
        });
      }
    }
  });

  test("an unknown trust value fails closed, as a guest", () => {
    const odd = { trust: "owner" as any, conversation: GUEST };
    expect(effectiveScope(odd, "all").granted).toBe("guest");
  });
});

describe("what a guest can reach", () => {
  test("no combination of scope, source, key and query reaches the owner's or another conversation's memory", () => {
    const { memory } = world();
    const guest: MemoryCaller = { trust: "guest", conversation: GUEST };
    let sawOwn = 0;
    let combinations = 0;
    for (const scope of SCOPES)
      for (const source of SOURCES)
        for (const key of KEYS)
          for (const query of QUERIES) {
            combinations++;
            const result = recallAs(memory, guest, { scope, source, key, query });
            if (!result.ok) continue;
            for (const hit of result.hits) {
              const text = textOf(hit);
              expect(text).toContain("guest");
              expect(text).not.toMatch(/owner secret|other|thread|job|111|333|444|555/);
              if (hit.from === "memory") expect(hit.scope).toBe(conversationScope(GUEST));
              else expect(hit.conversation).toEqual(GUEST);
              sawOwn++;
            }
          }
    expect(combinations).toBe(SCOPES.length * SOURCES.length * KEYS.length * QUERIES.length);
    // The guest does find its own memory: the bound is on whose data, not on recall working.
    expect(sawOwn).toBeGreaterThan(0);
  });

  test("a thread is its own conversation: the parent chat's guest cannot read it, nor it the parent", () => {
    const { memory } = world();
    const inThread = recallAs(
      memory,
      { trust: "guest", conversation: GUEST_THREAD },
      { query: "secret", source: "all", scope: "all" },
    );
    expect(inThread.ok && inThread.hits.map(textOf).every((t) => t.includes("thread"))).toBe(true);
    expect(inThread.ok && inThread.hits).toHaveLength(2);
  });

  test("a job reaches only its own facts, and no history", () => {
    const { memory } = world();
    const job: MemoryCaller = { trust: "operator", jobId: "job_1", conversation: OWNER_CHAT };
    for (const scope of SCOPES)
      for (const source of SOURCES)
        for (const query of QUERIES) {
          const result = recallAs(memory, job, { scope, source, query });
          if (!result.ok) continue;
          for (const hit of result.hits) expect(textOf(hit)).toContain("job secret");
        }
    const r = recallAs(memory, job, { key: "passport", source: "all" });
    expect(r.ok && r.hits.map(textOf)).toEqual([`${jobScope("job_1")} job secret passport 555`]);
  });

  test("the operator's scopes do narrow: current, owner and all see progressively more", () => {
    const { memory } = world();
    const op: MemoryCaller = { trust: "operator", conversation: OWNER_CHAT };
    const count = (scope: RequestedScope) => {
      const r = recallAs(memory, op, { scope, query: "secret", source: "all" });
      return r.ok ? r.hits.length : -1;
    };
    // current: the owner's fact + this conversation; owner: the same (only one operator conversation);
    // all: five facts and four conversations.
    expect([count("current"), count("owner"), count("all")]).toEqual([2, 2, 9]);
  });
});
