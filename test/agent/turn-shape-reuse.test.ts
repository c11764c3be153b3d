/**
 * A daemon's turn reuses the previous turn's tool split and spec list when it offers the very same tools (issue 31);
 * the system prompt is rebuilt each turn. What changes between turns — a prompt file edited, the date, a plugin's
 * tools — must still reach the very next request.
 */
import { Database } from "bun:sqlite";
import { describe, expect, test } from "bun:test";
import * as v from "valibot";
import { runTurn, type ToolEnvironment } from "../../src/agent/turn.ts";
import { fileRead } from "../../src/capabilities/builtins/file-read.ts";
import { BUILTIN_TOOLS } from "../../src/capabilities/builtins/registry.ts";
import { BRIDGES } from "../../src/capabilities/deferral/bridges.ts";
import { splitSurfaceReusing } from "../../src/capabilities/deferral/split.ts";
import { createRegistry } from "../../src/capabilities/registry.ts";
import { type AnyTool, defineTool } from "../../src/capabilities/tool.ts";
import { migrate } from "../../src/memory/db.ts";
import { createMessageStore } from "../../src/memory/messages.ts";
import { findProvider } from "../../src/providers/descriptors.ts";
import type { Route } from "../../src/providers/routes.ts";
import { scriptedWires, text } from "../fixture/scripted-wire.ts";

const DAY = Date.parse("2026-11-29T12:00:00Z");
const plugin = (name: string): AnyTool =>
  defineTool({
    name,
    description: `The ${name} plugin tool.`,
    policy: "plugin",
    readOnly: true,
    parameters: v.object({}),
    execute: async () => "ok",
  });

describe("a turn's shape across turns", () => {
  test("a split is reused only for the very same tools and options", () => {
    const opts = {
      enabled: true,
      isDeferrable: (t: AnyTool) => t.policy === "plugin",
      weigh: (t: AnyTool) => (BRIDGES.includes(t) ? 1 : 1_000),
    };
    const tools = [fileRead, plugin("calendar_list")];
    const split = splitSurfaceReusing(tools, opts);
    expect(split.deferred.map((t) => t.name)).toEqual(["calendar_list"]);
    expect(splitSurfaceReusing([...tools], opts)).toBe(split);
    // A tool rebuilt under the same name (a plugin reloaded) is another tool.
    const rebuilt = splitSurfaceReusing([fileRead, plugin("calendar_list")], opts);
    expect(rebuilt).not.toBe(split);
    expect(splitSurfaceReusing([fileRead, plugin("calendar_list"), plugin("mail_send")], opts).deferred).toHaveLength(
      2,
    );
    expect(splitSurfaceReusing(tools, { ...opts, enabled: false }).deferred).toEqual([]);
  });

  test("a prompt file edited, a new day and a new plugin tool reach the next turn's request", async () => {
    const db = new Database(":memory:");
    migrate(db);
    const { wires, calls } = scriptedWires({ openai: ["1", "2", "3", "4", "5"].map((n) => text(n)) });
    let now = DAY;
    let soul = "Be kind.";
    let extras: AnyTool[] = [];
    const deps = {
      store: createMessageStore(db),
      routes: (): Route[] => [
        {
          descriptor: findProvider("openai")!,
          model: findProvider("openai")!.defaultModel,
          target: { provider: "openai", baseUrl: "http://x", headers: {}, receiveTimeoutMs: 1000 },
        },
      ],
      router: { wires, fetch, sleep: async () => {} },
      registry: createRegistry(BUILTIN_TOOLS),
      toolEnvironment: () => ({}) as ToolEnvironment,
      now: () => now,
      agentName: "fermix",
      timezone: "Europe/Berlin",
      promptFiles: () => ({ soul }),
      extraTools: () => extras,
      deferTools: false,
    };
    const key = { channel: "cli", chat: "ses_reuse" };
    const turn = async (text: string) => {
      await runTurn({ key, text }, deps);
      return calls.at(-1)!.request;
    };
    const a = await turn("a");
    expect(a.system).toContain("Be kind.");
    expect(a.system).toContain("2026-11-29");
    soul = "Be brief.";
    const b = await turn("b");
    expect(b.system).toContain("Be brief.");
    now = DAY + 86_400_000;
    const c = await turn("c");
    expect(c.system).toContain("2026-11-30");
    expect(c.tools).toBe(b.tools);
    extras = [plugin("calendar_list")];
    const d = await turn("d");
    expect(c.tools?.map((t) => t.name)).not.toContain("calendar_list");
    expect(d.tools?.map((t) => t.name)).toContain("calendar_list");
    expect(d.system).toContain("calendar_list");
    // Nothing changed between the last two turns: the same prompt and the very same tool list.
    const e = await turn("e");
    expect(e.system).toBe(d.system);
    expect(e.tools).toBe(d.tools);
  });
});
