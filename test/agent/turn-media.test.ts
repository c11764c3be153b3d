import { Database } from "bun:sqlite";
import { describe, expect, test } from "bun:test";
import { runTurn, type ToolEnvironment } from "../../src/agent/turn.ts";
import { BUILTIN_TOOLS } from "../../src/capabilities/builtins/registry.ts";
import type { ChannelReply } from "../../src/capabilities/channel-reply.ts";
import { createRegistry } from "../../src/capabilities/registry.ts";
import { migrate } from "../../src/memory/db.ts";
import { createMessageStore } from "../../src/memory/messages.ts";
import { findProvider } from "../../src/providers/descriptors.ts";
import type { Route } from "../../src/providers/routes.ts";
import type { StreamEvent } from "../../src/providers/types.ts";
import { failure, scriptedWires, text } from "../fixture/scripted-wire.ts";
import { makeTree } from "../sandbox/_tree.ts";

const key = { channel: "telegram", chat: "42" };
const PICTURE = { mime: "image/jpeg", data: new Uint8Array(2048).fill(7) };
const owner = { trust: "operator" as const, local: false, attended: true };

function setup(scripts: Record<string, StreamEvent[][]>, chain: Array<[string, string]> = [["openai", "gpt-5.5"]]) {
  const db = new Database(":memory:");
  migrate(db);
  const store = createMessageStore(db);
  const { wires, calls } = scriptedWires(scripts);
  const routes = (): Route[] =>
    chain.map(([id, model]) => ({
      descriptor: findProvider(id)!,
      model,
      target: { provider: id, baseUrl: "http://x", headers: {}, receiveTimeoutMs: 1000 },
    }));
  const deps = {
    store,
    routes,
    router: { wires, fetch, sleep: async () => {} },
    registry: createRegistry(BUILTIN_TOOLS),
    toolEnvironment: () => ({}) as ToolEnvironment,
    now: () => Date.parse("2026-11-29T12:00:00Z"),
    agentName: "fermix",
    timezone: "UTC",
  };
  return { store, calls, deps };
}

const toolCall = (name: string, args: Record<string, unknown>): StreamEvent[] => [
  { type: "tool_call", call: { type: "tool_call", id: `call_${name}`, name, arguments: args } },
  { type: "done", stopReason: "tool_use" },
];

describe("a turn with pictures", () => {
  test("sends them as image parts in that turn only; history keeps a placeholder", async () => {
    const { store, calls, deps } = setup({ openai: [text("A cat."), text("Still a cat.")] });
    await runTurn({ key, text: "what is this?", caller: owner, images: [PICTURE] }, deps);
    const first = calls[0]!.request.messages.at(-1)!;
    expect(first).toEqual({
      role: "user",
      content: [
        { type: "image", mime: "image/jpeg", data: Buffer.from(PICTURE.data).toString("base64") },
        { type: "text", text: "what is this?" },
      ],
    });
    expect(store.history(key)[0]).toEqual({
      role: "user",
      content: [
        { type: "text", text: "[image: image/jpeg, 2 KB]" },
        { type: "text", text: "what is this?" },
      ],
    });
    await runTurn({ key, text: "and now?", caller: owner }, deps);
    const replayed = JSON.stringify(calls[1]!.request.messages);
    expect(replayed).toContain("[image: image/jpeg, 2 KB]");
    expect(replayed).not.toContain('"type":"image"');
  });

  test("a primary model that cannot see fails loudly, before any call, and saves nothing", async () => {
    const { store, calls, deps } = setup({ ollama: [text("never")] }, [["ollama", "llama3.2"]]);
    await expect(runTurn({ key, text: "look", caller: owner, images: [PICTURE] }, deps)).rejects.toMatchObject({
      code: "provider_no_vision",
      message: expect.stringContaining("the model llama3.2 (Ollama) cannot read images"),
    });
    expect(calls).toEqual([]);
    expect(store.history(key)).toEqual([]);
  });

  test("a text-only fallback is skipped rather than handed the pictures", async () => {
    const { calls, deps } = setup(
      {
        openai: [failure("openai", "transient"), failure("openai", "transient"), failure("openai", "transient")],
        mistral: [text("no")],
      },
      [
        ["openai", "gpt-5.5"],
        ["mistral", "codestral-latest"],
      ],
    );
    await expect(runTurn({ key, text: "look", caller: owner, images: [PICTURE] }, deps)).rejects.toMatchObject({
      code: "provider_unavailable",
    });
    expect(calls.map((c) => c.provider)).toEqual(["openai", "openai", "openai"]);
  });
});

describe("a channel turn's chat tools", () => {
  const reacted: string[] = [];
  const sent: string[] = [];
  const channel: ChannelReply = {
    name: "telegram",
    maxUploadBytes: 1024,
    reactions: ["👍", "🎉"],
    react: async (emoji) => void reacted.push(emoji),
    sendFile: async (file) => void sent.push(file.filename),
  };

  test("are offered in a channel turn and not in a CLI turn", async () => {
    const { calls, deps } = setup({ openai: [text("hi"), text("hi")] });
    await runTurn({ key: { channel: "cli", chat: "s" }, text: "hello" }, deps);
    await runTurn({ key, text: "hello", caller: owner, channel }, deps);
    const offered = (i: number) => calls[i]!.request.tools?.map((t) => t.name) ?? [];
    expect(offered(0)).not.toContain("react");
    expect(offered(0)).not.toContain("send_attachment");
    expect(offered(1)).toEqual(expect.arrayContaining(["react", "send_attachment"]));
  });

  test("a lone reaction ends the turn: no second model call, no text, a marker in history", async () => {
    reacted.length = 0;
    const { store, calls, deps } = setup({ openai: [toolCall("react", { emoji: "👍" })] });
    const result = await runTurn({ key, text: "thanks!", caller: owner, channel }, deps);
    expect(result.response).toBe("");
    expect(calls).toHaveLength(1);
    expect(reacted).toEqual(["👍"]);
    const history = store.history(key);
    expect(history.map((m) => m.role)).toEqual(["user", "assistant", "tool", "assistant"]);
    expect(history.at(-1)).toEqual({
      role: "assistant",
      content: [{ type: "text", text: "(Reacted to the previous message.)" }],
    });
  });

  test("a file and then silence commits the attachment marker instead of failing as empty", async () => {
    using tree = makeTree();
    sent.length = 0;
    const { store, deps } = setup({
      openai: [toolCall("send_attachment", { path: "plain.txt" }), [{ type: "done", stopReason: "stop" }]],
    });
    const withSandbox = { ...deps, toolEnvironment: () => ({ sandbox: tree.sandbox("standard") }) as ToolEnvironment };
    const result = await runTurn({ key, text: "send the notes", caller: owner, channel }, withSandbox);
    expect(result.response).toBe("");
    expect(sent).toEqual(["plain.txt"]);
    expect(store.history(key).at(-1)).toEqual({
      role: "assistant",
      content: [{ type: "text", text: "(Sent an attachment in reply.)" }],
    });
  });

  test("a refused file and then silence is still an empty answer", async () => {
    const { store, deps } = setup({
      openai: [toolCall("send_attachment", { path: "https://x.test/a.png" }), [{ type: "done", stopReason: "stop" }]],
    });
    // A URL is refused, so the turn did not send anything: an empty answer is still an empty answer.
    await expect(runTurn({ key, text: "send it", caller: owner, channel }, deps)).rejects.toMatchObject({
      code: "empty_completion",
    });
    expect(store.history(key)).toEqual([]);
  });
});
