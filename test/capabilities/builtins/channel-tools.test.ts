import { afterAll, describe, expect, test } from "bun:test";
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { BUILTIN_TOOLS } from "../../../src/capabilities/builtins/registry.ts";
import type { Caller } from "../../../src/capabilities/caller.ts";
import type { ChannelReply, OutboundFile } from "../../../src/capabilities/channel-reply.ts";
import { createRegistry } from "../../../src/capabilities/registry.ts";
import type { ToolContext } from "../../../src/capabilities/tool.ts";
import { makeTree } from "../../sandbox/_tree.ts";

const tree = makeTree();
afterAll(() => tree[Symbol.dispose]());
const sandbox = tree.sandbox("standard");
const registry = createRegistry(BUILTIN_TOOLS);
const TELEGRAM_REACTIONS = ["👍", "👎", "🔥", "🎉"];

const owner: Caller = { trust: "operator", local: false, attended: true };
const guest: Caller = { trust: "guest", local: false, attended: true };

function chat(opts: { files?: boolean; reactions?: readonly string[]; maxUploadBytes?: number } = {}) {
  const sent: OutboundFile[] = [];
  const reacted: string[] = [];
  const channel: ChannelReply = {
    name: "telegram",
    maxUploadBytes: opts.maxUploadBytes ?? 50 * 1024 * 1024,
    reactions: opts.reactions,
    ...(opts.files === false ? {} : { sendFile: async (file: OutboundFile) => void sent.push(file) }),
    ...(opts.reactions ? { react: async (emoji: string) => void reacted.push(emoji) } : {}),
  };
  return { channel, sent, reacted };
}

function context(caller: Caller, channel?: ChannelReply): ToolContext {
  const surface = registry.surface(caller, channel);
  return {
    caller: { ...caller, cwd: tree.workspace },
    conversation: { channel: "telegram", chat: "42" },
    signal: new AbortController().signal,
    sandbox,
    now: Date.now,
    notify() {},
    surface: () => surface,
    channel,
  } as unknown as ToolContext;
}

const names = (caller: Caller, channel?: ChannelReply) => registry.surface(caller, channel).map((t) => t.name);
const call = (name: string, args: Record<string, unknown>) => ({
  type: "tool_call" as const,
  id: "c1",
  name,
  arguments: args,
});

describe("which turns are offered the chat tools", () => {
  test("a CLI turn (no channel) gets neither", () => {
    expect(names(owner)).not.toContain("send_attachment");
    expect(names(owner)).not.toContain("react");
  });

  test("a channel turn gets what its platform supports", () => {
    expect(names(owner, chat({ reactions: TELEGRAM_REACTIONS }).channel)).toEqual(
      expect.arrayContaining(["send_attachment", "react"]),
    );
    expect(names(owner, chat().channel)).toContain("send_attachment");
    expect(names(owner, chat().channel)).not.toContain("react");
    expect(names(owner, chat({ files: false, reactions: [] }).channel)).toEqual(
      expect.not.arrayContaining(["send_attachment"]),
    );
  });

  test("a guest may react but not send the owner's files; a job or subagent gets neither", () => {
    const { channel } = chat({ reactions: TELEGRAM_REACTIONS });
    expect(names(guest, channel)).toContain("react");
    expect(names(guest, channel)).not.toContain("send_attachment");
    const unattended = { ...owner, attended: false };
    expect(names(unattended, channel)).not.toContain("react");
    expect(names(unattended, channel)).not.toContain("send_attachment");
  });

  test("a platform with a fixed reaction list gets react with an enum of it", () => {
    const { channel } = chat({ reactions: TELEGRAM_REACTIONS });
    const react = registry.surface(owner, channel).find((t) => t.name === "react")!;
    expect(registry.spec(react).parameters).toMatchObject({
      properties: { emoji: { enum: TELEGRAM_REACTIONS } },
      required: ["emoji"],
    });
    // One tool object per list, so its schema is built once.
    expect(
      registry.surface(owner, chat({ reactions: TELEGRAM_REACTIONS }).channel).find((t) => t.name === "react"),
    ).toBe(react);
    const open = registry.surface(owner, chat({ reactions: [] }).channel).find((t) => t.name === "react")!;
    expect(registry.spec(open).parameters).toMatchObject({ properties: { emoji: { type: "string" } } });
  });
});

describe("send_attachment", () => {
  mkdirSync(join(tree.workspace, "out"), { recursive: true });
  writeFileSync(join(tree.workspace, "out", "chart.png"), "PNGDATA");

  test("sends a sandbox file with its name, a type from its extension and the caption", async () => {
    const { channel, sent } = chat();
    const outcome = await registry.dispatch(
      call("send_attachment", { path: "out/chart.png", kind: "image", caption: "Q3" }),
      context(owner, channel),
    );
    expect(outcome).toMatchObject({ content: "Sent attachment: chart.png" });
    expect(outcome.isError).toBeUndefined();
    expect(sent).toHaveLength(1);
    expect(sent[0]).toMatchObject({ kind: "image", filename: "chart.png", mime: "image/png", caption: "Q3" });
    expect(new TextDecoder().decode(sent[0]!.bytes)).toBe("PNGDATA");
  });

  test("defaults to a document; filename and mime_type override", async () => {
    const { channel, sent } = chat();
    await registry.dispatch(
      call("send_attachment", { path: "plain.txt", filename: "notes.md", mime_type: "text/markdown" }),
      context(owner, channel),
    );
    expect(sent[0]).toMatchObject({ kind: "document", filename: "notes.md", mime: "text/markdown" });
    expect(sent[0]!.caption).toBeUndefined();
  });

  test("URLs, missing files, directories and paths outside the sandbox are refused in sentences", async () => {
    const { channel, sent } = chat();
    const ctx = context(owner, channel);
    const content = async (path: string) => (await registry.dispatch(call("send_attachment", { path }), ctx)).content;
    expect(await content("https://example.com/a.png")).toBe(
      "URLs are not supported by send_attachment; send the link as text instead.",
    );
    expect(await content("out/missing.pdf")).toBe("Attachment file not found: out/missing.pdf");
    expect(await content("out")).toContain("is a directory, not a file");
    expect(await content(join(tree.outside, "secret.txt"))).toStartWith("Denied:");
    expect(sent).toEqual([]);
  });

  test("a file over the platform's upload limit is not sent", async () => {
    const { channel, sent } = chat({ maxUploadBytes: 4 });
    const outcome = await registry.dispatch(
      call("send_attachment", { path: "out/chart.png" }),
      context(owner, channel),
    );
    expect(outcome.isError).toBe(true);
    expect(outcome.content).toContain("over the telegram upload limit");
    expect(sent).toEqual([]);
  });

  test("without a channel it says so", async () => {
    const tool = BUILTIN_TOOLS.find((t) => t.name === "send_attachment")!;
    expect(await tool.execute({ path: "plain.txt", kind: "document" }, context(owner))).toEqual({
      isError: true,
      content: "send_attachment requires a channel reply context",
    });
  });
});

describe("react", () => {
  test("reacts on the answered message and ends the turn", async () => {
    const { channel, reacted } = chat({ reactions: TELEGRAM_REACTIONS });
    const outcome = await registry.dispatch(call("react", { emoji: "🎉" }), context(owner, channel));
    expect(outcome).toMatchObject({ content: "Reacted with 🎉", endsTurn: true });
    expect(reacted).toEqual(["🎉"]);
  });

  test("an emoji outside the platform's list is an argument error naming the allowed ones", async () => {
    const { channel, reacted } = chat({ reactions: TELEGRAM_REACTIONS });
    const outcome = await registry.dispatch(call("react", { emoji: "🦄" }), context(owner, channel));
    expect(outcome.isError).toBe(true);
    expect(outcome.content).toContain("👍 👎 🔥 🎉");
    expect(reacted).toEqual([]);
  });
});
