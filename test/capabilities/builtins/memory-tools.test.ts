import { Database } from "bun:sqlite";
import { describe, expect, test } from "bun:test";
import { MEMORY_TOOLS } from "../../../src/capabilities/builtins/memory-tools.ts";
import type { Caller } from "../../../src/capabilities/caller.ts";
import { createRegistry } from "../../../src/capabilities/registry.ts";
import type { ToolContext } from "../../../src/capabilities/tool.ts";
import { migrate } from "../../../src/memory/db.ts";
import { createMemoryStore } from "../../../src/memory/memories.ts";
import type { MemoryStore } from "../../../src/memory/memories-contract.ts";
import { createMessageStore } from "../../../src/memory/messages.ts";
import type { ConversationKey } from "../../../src/memory/messages-contract.ts";
import { conversationScope, jobScope } from "../../../src/memory/scopes.ts";
import { createLog } from "../../../src/observability/log.ts";
import type { Message } from "../../../src/providers/types.ts";

const OPERATOR: Caller = { trust: "operator", local: true, attended: true };
const GUEST: Caller = { trust: "guest", local: false, attended: true };
const OWNER_CHAT = { channel: "cli", chat: "ses_1" };
const GUEST_CHAT = { channel: "telegram", chat: "42" };
const user = (text: string): Message => ({ role: "user", content: [{ type: "text", text }] });

function setup() {
  const db = new Database(":memory:", { strict: true });
  migrate(db);
  const now = () => Date.UTC(2025, 2, 1, 9, 30);
  const memory = createMemoryStore(db, now);
  const messages = createMessageStore(db, now);
  const registry = createRegistry([...MEMORY_TOOLS]);
  const context = (caller: Caller, conversation: ConversationKey, store: MemoryStore | null = memory) =>
    ({
      caller,
      conversation,
      signal: new AbortController().signal,
      log: createLog({}),
      now,
      notify: () => {},
      surface: () => registry.surface(caller),
      memory: store ?? undefined,
    }) as unknown as ToolContext;
  const call = async (ctx: ToolContext, name: string, args: Record<string, unknown> = {}) =>
    registry.dispatch({ type: "tool_call", id: "c1", name, arguments: args }, ctx);
  return { db, memory, messages, registry, context, call };
}

describe("memory tools", () => {
  test("an operator stores, replaces and recalls owner facts", async () => {
    const s = setup();
    const ctx = s.context(OPERATOR, OWNER_CHAT);
    const stored = await s.call(ctx, "memory_store", { category: "preference", key: "Favorite color", value: "blue" });
    expect(stored).toMatchObject({ content: "Stored preference favorite_color = blue." });
    expect(stored.isError).toBeUndefined();
    const replaced = await s.call(ctx, "memory_store", {
      category: "preference",
      key: "favorite color",
      value: "green",
    });
    expect(replaced.content).toBe('Stored preference favorite_color = green (replacing "blue").');
    const again = await s.call(ctx, "memory_store", { category: "preference", key: "favorite_color", value: "green" });
    expect(again.content).toBe("Already known: favorite_color = green.");
    expect(s.memory.liveFacts("owner")).toMatchObject([{ value: "green", source: "conversation cli:ses_1" }]);

    const byKey = await s.call(ctx, "memory_recall", { key: "favorite color" });
    expect(byKey.content).toBe(
      '1 result for key "favorite color" (scope current):\n1. [fact, owner, preference] favorite_color: green (2025-03-01)',
    );
    s.messages.commitTurn(OWNER_CHAT, [user("green is also the colour of the new logo")], { turnId: "t" });
    const search = await s.call(ctx, "memory_recall", { query: "green logo" });
    expect(search.content).toBe(
      '2 results for "green logo" (scope current):\n' +
        "1. [fact, owner, preference] favorite_color: green (2025-03-01)\n" +
        "2. [history cli:ses_1, user, 2025-03-01 09:30] green is also the colour of the new logo",
    );
  });

  test("arguments are validated: categories, scopes, sources and limit ≤ 50", async () => {
    const s = setup();
    const ctx = s.context(OPERATOR, OWNER_CHAT);
    for (const [name, args] of [
      ["memory_store", { category: "gossip", key: "k", value: "v" }],
      ["memory_store", { category: "goal", key: "", value: "v" }],
      ["memory_store", { category: "goal", key: "k", value: "v", confidence: 3 }],
      ["memory_recall", { query: "x", scope: "everything" }],
      ["memory_recall", { query: "x", source: "web" }],
      ["memory_recall", { query: "x", limit: 51 }],
    ] as const) {
      const r = await s.call(ctx, name, args);
      expect(r.isError).toBe(true);
      expect(r.content).toStartWith(`Invalid arguments for ${name}`);
    }
    expect((s.db.query("SELECT COUNT(*) AS n FROM memories").get() as any).n).toBe(0);
  });

  test("a query that is nothing but FTS5 syntax comes back as a clear error result", async () => {
    const s = setup();
    const ctx = s.context(OPERATOR, OWNER_CHAT);
    expect(await s.call(ctx, "memory_recall", { query: '"( * )"' })).toMatchObject({
      isError: true,
      content: "Recall failed: the query has no words to search for.",
    });
    expect((await s.call(ctx, "memory_recall", { query: 'NEAR("a" b' })).isError).toBeUndefined();
  });

  test("without a memory store in the context the tools say so", async () => {
    const s = setup();
    const ctx = s.context(OPERATOR, OWNER_CHAT, null);
    for (const name of ["memory_store", "memory_recall", "memory_sources_list"]) {
      const r = await s.call(ctx, name, name === "memory_store" ? { category: "goal", key: "k", value: "v" } : {});
      expect(r).toMatchObject({ isError: true, content: "Memory is not available in this context." });
    }
  });

  test("descriptions are one line and the schemas render for providers", () => {
    const s = setup();
    for (const tool of MEMORY_TOOLS) {
      expect(tool.description).not.toContain("\n");
      expect(s.registry.spec(tool).parameters).toMatchObject({ type: "object" });
    }
  });
});

describe("memory tools and a guest", () => {
  test("a guest may recall and store, but not list the owner's memory sources", async () => {
    const s = setup();
    expect(s.registry.surface(GUEST).map((t) => t.name)).toEqual(["memory_store", "memory_recall"]);
    const r = await s.call(s.context(GUEST, GUEST_CHAT), "memory_sources_list");
    expect(r).toMatchObject({ isError: true, content: 'There is no tool named "memory_sources_list" available here.' });
  });

  test("what a guest stores stays with its conversation and cannot overwrite the owner's fact", async () => {
    const s = setup();
    await s.call(s.context(OPERATOR, OWNER_CHAT), "memory_store", { category: "identity", key: "name", value: "Ada" });
    const r = await s.call(s.context(GUEST, GUEST_CHAT), "memory_store", {
      category: "identity",
      key: "name",
      value: "Mallory",
    });
    expect(r.content).toBe("Stored identity name = Mallory (kept with this conversation).");
    expect(s.memory.liveFacts("owner").map((f) => f.value)).toEqual(["Ada"]);
    expect(s.memory.liveFacts(conversationScope(GUEST_CHAT)).map((f) => f.value)).toEqual(["Mallory"]);
  });

  test("no combination of arguments lets a guest read the owner's facts or other conversations", async () => {
    const s = setup();
    const owner = s.context(OPERATOR, OWNER_CHAT);
    await s.call(owner, "memory_store", { category: "identity", key: "passport", value: "owner passport 111" });
    s.messages.commitTurn(OWNER_CHAT, [user("owner passport is in the drawer")], { turnId: "t1" });
    s.messages.commitTurn({ channel: "telegram", chat: "43" }, [user("stranger passport talk")], { turnId: "t2" });
    s.memory.noteConversation(OWNER_CHAT, "operator");
    const guest = s.context(GUEST, GUEST_CHAT);
    await s.call(guest, "memory_store", { category: "identity", key: "passport", value: "guest passport 222" });
    s.messages.commitTurn(GUEST_CHAT, [user("guest passport question")], { turnId: "t3" });

    let found = 0;
    for (const scope of [undefined, "current", "owner", "all"])
      for (const source of [undefined, "memories", "history", "all"])
        for (const key of [undefined, "passport", "owner"])
          for (const query of [undefined, "passport", "owner drawer", "stranger", "111 OR 222", "pass*"]) {
            const args = Object.fromEntries(Object.entries({ scope, source, key, query }).filter(([, v]) => v));
            const r = await s.call(guest, "memory_recall", args);
            // The first line echoes the query; the hits follow it.
            const hits = r.content.split("\n").slice(1).join("\n");
            expect(hits).not.toMatch(/owner passport|drawer|stranger|111/);
            found += hits.match(/guest passport/g)?.length ?? 0;
            if (scope === "owner" || scope === "all")
              expect(r.content).toMatch(/scope limited to this conversation|^Recall failed/);
          }
    expect(found).toBeGreaterThan(0);
  });
});

describe("memory_sources_list", () => {
  test("the operator sees facts per scope and category, and the size of the history", async () => {
    const s = setup();
    s.memory.store({ scope: "owner", category: "identity", key: "name", value: "Ada", source: "t" });
    s.memory.store({ scope: "owner", category: "goal", key: "run", value: "a marathon", source: "t" });
    s.memory.store({ scope: conversationScope(GUEST_CHAT), category: "identity", key: "n", value: "M", source: "t" });
    s.messages.commitTurn(OWNER_CHAT, [user("hi")], { turnId: "t" });
    const r = await s.call(s.context(OPERATOR, OWNER_CHAT), "memory_sources_list");
    expect(r.content).toBe(
      "Stored facts:\n- conversation telegram:42: identity 1\n- owner: goal 1, identity 1\nHistory: 1 messages in 1 conversations.",
    );
  });

  test("a job sees only its own job memory", async () => {
    const s = setup();
    s.memory.store({ scope: "owner", category: "identity", key: "name", value: "Ada", source: "t" });
    s.memory.store({ scope: jobScope("job_7"), category: "context", key: "last_run", value: "ok", source: "t" });
    const job = { ...OPERATOR, attended: false, jobId: "job_7" } as Caller;
    const r = await s.call(s.context(job, { channel: "job", chat: "job_7" }), "memory_sources_list");
    expect(r.content).toBe("Stored facts:\n- job job_7: context 1");
    const stored = await s.call(s.context(job, { channel: "job", chat: "job_7" }), "memory_store", {
      category: "context",
      key: "name",
      value: "not the owner's",
    });
    expect(stored.isError).toBeUndefined();
    expect(s.memory.liveFacts("owner").map((f) => f.value)).toEqual(["Ada"]);
    expect(s.memory.liveFacts(jobScope("job_7")).map((f) => f.source)).toEqual(["t", jobScope("job_7")]);
  });
});
