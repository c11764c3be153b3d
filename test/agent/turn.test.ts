import { Database } from "bun:sqlite";
import { describe, expect, test } from "bun:test";
import { conversationTokens } from "../../src/agent/compaction.ts";
import { EMPTY_REPLY, runTurn, type ToolEnvironment } from "../../src/agent/turn.ts";
import { createRegistry } from "../../src/capabilities/registry.ts";
import { migrate } from "../../src/memory/db.ts";
import { createMessageStore } from "../../src/memory/messages.ts";
import { findProvider } from "../../src/providers/descriptors.ts";
import type { StreamEvent } from "../../src/providers/types.ts";
import { failure, scriptedRoutes, scriptedWires, text } from "../fixture/scripted-wire.ts";

const NOW = Date.parse("2026-11-29T12:00:00Z");
const key = { channel: "cli", chat: "ses_t" };

function setup(scripts: Record<string, StreamEvent[][]>) {
  const db = new Database(":memory:");
  migrate(db);
  const store = createMessageStore(db);
  const { wires, calls } = scriptedWires(scripts);
  const routes = scriptedRoutes;
  const deps = {
    store,
    routes,
    router: { wires, fetch, sleep: async () => {} },
    registry: createRegistry([]),
    toolEnvironment: () => ({}) as ToolEnvironment,
    now: () => NOW,
    agentName: "fermix",
    timezone: "Europe/Berlin",
  };
  return { store, calls, deps };
}

describe("a turn", () => {
  test("sends the history, streams the text and commits both messages", async () => {
    const { store, calls, deps } = setup({ openai: [text("first answer"), text("second answer")] });
    const deltas: string[] = [];
    await runTurn({ key, text: "one" }, deps);
    const result = await runTurn(
      {
        key,
        text: "two",
        onText: (d) => deltas.push(d),
        caller: { trust: "operator", local: true, attended: true, cwd: "/w/p" },
      },
      deps,
    );
    expect(result).toMatchObject({ response: "second answer", provider: "openai", model: "gpt-5.5" });
    expect(deltas).toEqual(["second answer"]);
    expect(calls[1]!.request.messages.map((m) => m.role)).toEqual(["user", "assistant", "user"]);
    expect(calls[1]!.request.system).toContain("Today's date is 2026-11-29");
    expect(calls[1]!.request.system).toContain("Europe/Berlin");
    expect(calls[1]!.request.system).toContain("/w/p");
    expect(calls[1]!.request.system).not.toMatch(/\d\d:\d\d/);
    expect(store.history(key)).toHaveLength(4);
  });

  test("its count of the conversation (for the compaction check) equals the store's window after the commit", async () => {
    const { store, deps } = setup({ openai: [text("first answer"), text("a second, longer answer")] });
    await runTurn({ key, text: "one" }, deps);
    // A summary stands in for what came before: the count covers it and only what follows it.
    store.saveSummary(key, store.window(key).rows.at(-1)!.id, "SUMMARY: counted to one");
    const result = await runTurn({ key, text: "two, with more words in it" }, deps);
    const { summary, rows } = store.window(key);
    expect(result.context).toEqual({
      conversationTokens: conversationTokens(
        summary,
        rows.map((r) => r.message),
      ),
      contextWindow: findProvider("openai")!.contextWindow,
    });
  });

  test("a conversation its caller just made is not read from the store", async () => {
    const { store, calls, deps } = setup({ openai: [text("hello")] });
    const read = store.window;
    let reads = 0;
    store.window = (k) => {
      reads++;
      return read(k);
    };
    await runTurn({ key, text: "hi", newConversation: true }, deps);
    expect(reads).toBe(0);
    expect(calls[0]!.request.messages.map((m) => m.role)).toEqual(["user"]);
    expect(store.history(key)).toHaveLength(2);
  });

  test("its step before the commit runs once the answer is in; one that throws leaves nothing stored", async () => {
    const { store, deps } = setup({ openai: [text("hello"), text("again")] });
    const seen: number[] = [];
    await runTurn({ key, text: "hi" }, { ...deps, beforeCommit: () => seen.push(store.history(key).length) });
    expect(seen).toEqual([0]);
    const refused = new Error("memory.db is read-only");
    const failing = runTurn(
      { key, text: "more" },
      {
        ...deps,
        beforeCommit: () => {
          throw refused;
        },
      },
    );
    await expect(failing).rejects.toBe(refused);
    expect(store.history(key)).toHaveLength(2);
  });

  test("an empty completion becomes an honest try-again error and commits nothing", async () => {
    const { store, deps } = setup({ openai: [[{ type: "done", stopReason: "stop" }]] });
    await expect(runTurn({ key, text: "hello?" }, deps)).rejects.toMatchObject({
      code: "empty_completion",
      message: EMPTY_REPLY,
    });
    expect(store.history(key)).toEqual([]);
  });

  test("a failed call commits nothing and names the provider", async () => {
    const { store, deps } = setup({ openai: [failure("openai", "auth", { status: 401 })] });
    await expect(runTurn({ key, text: "hi" }, deps)).rejects.toMatchObject({
      code: "provider_auth",
      message: expect.stringContaining("OpenAI rejected the API key (HTTP 401); set OPENAI_API_KEY"),
    });
    expect(store.history(key)).toEqual([]);
  });

  test("a rate limit with a reset time reads as a usage limit with minutes", async () => {
    const { deps } = setup({
      openai: [failure("openai", "rate_limit", { retryAt: NOW + 7 * 60_000 + 5_000 })],
      anthropic: [failure("anthropic", "rate_limit", { retryAt: NOW + 7 * 60_000 + 5_000 })],
    });
    await expect(runTurn({ key, text: "hi" }, deps)).rejects.toMatchObject({
      code: "provider_rate_limit",
      message: "usage limit — try again in ~8 min (Anthropic)",
    });
  });

  test("a cancelled turn neither replies nor commits", async () => {
    const { store, deps } = setup({ openai: [text("too late")] });
    const controller = new AbortController();
    controller.abort();
    await expect(runTurn({ key, text: "hi", signal: controller.signal }, deps)).rejects.toMatchObject({
      code: "cancelled",
    });
    expect(store.history(key)).toEqual([]);
  });
});
