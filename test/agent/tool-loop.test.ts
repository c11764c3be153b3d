import { describe, expect, test } from "bun:test";
import * as v from "valibot";
import { runToolLoop } from "../../src/agent/tool-loop.ts";
import type { Caller } from "../../src/capabilities/caller.ts";
import { createRegistry } from "../../src/capabilities/registry.ts";
import { type AnyTool, defineTool, type ToolContext } from "../../src/capabilities/tool.ts";
import { createLog } from "../../src/observability/log.ts";
import { findProvider } from "../../src/providers/descriptors.ts";
import type { Route } from "../../src/providers/routes.ts";
import type { Message, StreamEvent, ToolResultMessage } from "../../src/providers/types.ts";
import { failure, scriptedWires, text } from "../fixture/scripted-wire.ts";

const operator: Caller = { trust: "operator", local: true, attended: true };
const callTool = (
  name: string,
  args: Record<string, unknown> = {},
  id = `call_${name}_${Math.random()}`,
): StreamEvent => ({
  type: "tool_call",
  call: { type: "tool_call", id, name, arguments: args },
});
const toolTurn = (...calls: StreamEvent[]): StreamEvent[] => [...calls, { type: "done", stopReason: "tool_use" }];

function route(id: string): Route {
  const d = findProvider(id)!;
  return {
    descriptor: d,
    model: d.defaultModel,
    target: { provider: id, baseUrl: "http://x", headers: {}, receiveTimeoutMs: 1000 },
  };
}

function harness(tools: AnyTool[], scripts: Record<string, StreamEvent[][]>, caller: Caller = operator) {
  const registry = createRegistry(tools);
  const { wires, calls } = scriptedWires(scripts);
  const surface = registry.surface(caller);
  const ctx = {
    caller,
    conversation: { channel: "cli", chat: "t" },
    signal: new AbortController().signal,
    log: createLog({}),
    now: Date.now,
    notify: () => {},
    surface: () => surface,
  } as unknown as ToolContext;
  const run = (routes = [route("openai")]) =>
    runToolLoop({
      routes,
      system: "s",
      messages: [{ role: "user", content: [{ type: "text", text: "go" }] }],
      tools: surface.map((t) => registry.spec(t)),
      registry,
      toolContext: ctx,
      router: { wires, fetch, sleep: async () => {} },
    });
  return { run, calls };
}

const echo = defineTool({
  name: "echo",
  description: "echo",
  policy: "meta",
  readOnly: true,
  parameters: v.object({ say: v.string() }),
  execute: async (args) => `echo: ${args.say}`,
});

function toolResults(messages: Message[]): ToolResultMessage[] {
  return messages.filter((m): m is ToolResultMessage => m.role === "tool");
}

describe("the model/tool loop", () => {
  test("three tool calls in one response get three results, reads in parallel", async () => {
    let running = 0;
    let peak = 0;
    let release!: () => void;
    const gate = new Promise<void>((r) => {
      release = r;
    });
    const slowRead = defineTool({
      name: "slow_read",
      description: "waits",
      policy: "meta",
      readOnly: true,
      parameters: v.object({ n: v.number() }),
      async execute(args) {
        running++;
        peak = Math.max(peak, running);
        if (running === 3) release();
        await gate;
        running--;
        return `read ${args.n}`;
      },
    });
    const { run, calls } = harness([slowRead], {
      openai: [
        toolTurn(callTool("slow_read", { n: 1 }), callTool("slow_read", { n: 2 }), callTool("slow_read", { n: 3 })),
        text("all read"),
      ],
    });
    const result = await run();
    expect(result).toMatchObject({ ok: true, text: "all read" });
    expect(peak).toBe(3);
    const results = toolResults(calls[1]!.request.messages);
    expect(results.map((r) => r.content)).toEqual(["read 1", "read 2", "read 3"]);
  });

  test("bad arguments come back as an error the model can read and correct", async () => {
    const { run, calls } = harness([echo], {
      openai: [toolTurn(callTool("echo", { said: 1 })), toolTurn(callTool("echo", { say: "fixed" })), text("ok")],
    });
    await run();
    const first = toolResults(calls[1]!.request.messages)[0]!;
    expect(first.isError).toBe(true);
    expect(first.content).toContain("Invalid arguments for echo");
    expect(first.content).toContain("say");
    expect(toolResults(calls[2]!.request.messages)[1]!.content).toBe("echo: fixed");
  });

  test("the loop detector warns at 3 identical calls and stops the turn at 5", async () => {
    const same = () => toolTurn(callTool("echo", { say: "again" }));
    const { run, calls } = harness([echo], { openai: [same(), same(), same(), same(), same(), text("never")] });
    await expect(run()).rejects.toMatchObject({
      code: "loop_detected",
      message: expect.stringContaining("Repeated tool call loop detected"),
    });
    const results = toolResults(calls[3]!.request.messages);
    expect(results[1]!.content).not.toContain("[fermix:");
    expect(results[2]!.content).toContain("has now been made 3+ times");
    expect(calls).toHaveLength(5);
  });

  test("a failing tool is a result, not a crash", async () => {
    const broken = defineTool({
      name: "broken",
      description: "throws",
      policy: "meta",
      readOnly: false,
      parameters: v.object({}),
      execute: async () => {
        throw new Error("disk on fire");
      },
    });
    const { run, calls } = harness([broken], { openai: [toolTurn(callTool("broken")), text("handled")] });
    expect(await run()).toMatchObject({ ok: true, text: "handled" });
    expect(toolResults(calls[1]!.request.messages)[0]).toMatchObject({
      isError: true,
      content: "broken failed: disk on fire",
    });
  });

  test("failover happens on the first call only; the loop then stays on the winning route", async () => {
    const { run, calls } = harness([echo], {
      openai: [failure("openai", "rate_limit")],
      anthropic: [toolTurn(callTool("echo", { say: "x" })), failure("anthropic", "rate_limit")],
    });
    const result = await run([route("openai"), route("anthropic")]);
    expect(result).toMatchObject({ ok: false, provider: "anthropic", afterOutput: true });
    expect(calls.map((c) => c.provider)).toEqual(["openai", "anthropic", "anthropic"]);
  });

  test("a guest neither sees nor can call workspace, exec or network tools", async () => {
    const exec = defineTool({
      name: "exec_tool",
      description: "x",
      policy: "exec",
      readOnly: false,
      parameters: v.object({}),
      execute: async () => "ran!",
    });
    const read = defineTool({
      name: "read_tool",
      description: "x",
      policy: "workspace_read",
      readOnly: true,
      parameters: v.object({}),
      execute: async () => "secret",
    });
    const guest: Caller = { trust: "guest", local: false, attended: true };
    const { run, calls } = harness(
      [echo, exec, read],
      { openai: [toolTurn(callTool("exec_tool"), callTool("read_tool")), text("done")] },
      guest,
    );
    await run();
    expect((calls[0]!.request.tools ?? []).map((t) => t.name)).toEqual(["echo"]);
    for (const r of toolResults(calls[1]!.request.messages)) {
      expect(r).toMatchObject({ isError: true, content: expect.stringContaining("There is no tool named") });
    }
  });
});
