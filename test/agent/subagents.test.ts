import { describe, expect, test } from "bun:test";
import * as v from "valibot";
import { runSubagents } from "../../src/agent/subagents.ts";
import { createApp } from "../../src/app.ts";
import { createRegistry } from "../../src/capabilities/registry.ts";
import { defineTool, type ToolContext } from "../../src/capabilities/tool.ts";
import { findProvider } from "../../src/providers/descriptors.ts";
import type { StreamEvent } from "../../src/providers/types.ts";
import { startFakeOpenAIResponses } from "../fake/llm.ts";
import { cleanupAfterEach } from "../fixture/cleanup.ts";
import { tempHome } from "../fixture/home.ts";
import { scriptedWires, text } from "../fixture/scripted-wire.ts";
import { toolOutputs } from "../fixture/tool-outputs.ts";

const KEY = "sk-test-subagents-0123456789";
const defer = cleanupAfterEach();
const SUB = "You are a focused sub-agent";

/** The most requests that were in flight at once, given each took `ms` at the fake. */
function peakOverlap(starts: number[], ms: number): number {
  return Math.max(...starts.map((t) => starts.filter((s) => s <= t && t < s + ms).length));
}

describe("subagents", () => {
  test("10 tasks never run more than the concurrency at once, and their results come back", async () => {
    const h = tempHome();
    const fake = await startFakeOpenAIResponses({ apiKey: KEY });
    defer(() => h[Symbol.asyncDispose]());
    defer(() => fake.close());
    const app = await createApp({
      env: { FERMIX_HOME: h.home, HOME: h.userHome, OPENAI_API_KEY: KEY, OPENAI_BASE_URL: fake.baseUrl },
    });
    defer(() => app.close());
    const tasks = Array.from({ length: 10 }, (_, i) => ({ task: `count the letters of word ${i}` }));
    fake.enqueue({ kind: "tool_calls", calls: [{ name: "subagents", arguments: { tasks, concurrency: 3 } }] });
    fake.setDefault((req) => {
      if (String(req.body.instructions).startsWith(SUB)) {
        const task = /word (\d+)/.exec(JSON.stringify(req.body.input))![1];
        return { kind: "delay", ms: 150, reply: { kind: "text", text: `result for ${task}` } };
      }
      return { kind: "text", text: toolOutputs(req).join("\n") };
    });
    const reply = await app.ask({
      key: { channel: "cli", chat: "s" },
      caller: { trust: "operator", local: true, attended: true },
      text: "fan out",
    });
    for (let i = 0; i < 10; i++) expect(reply.response).toContain(`## Task ${i + 1}\nresult for ${i}`);
    const subRequests = fake.requests.filter((r) => String(r.body.instructions).startsWith(SUB));
    expect(subRequests).toHaveLength(10);
    expect(
      peakOverlap(
        subRequests.map((r) => r.receivedAt),
        150,
      ),
    ).toBeLessThanOrEqual(3);
    expect(
      peakOverlap(
        subRequests.map((r) => r.receivedAt),
        150,
      ),
    ).toBeGreaterThan(1);
    // A subagent is never offered subagents or request_directory_access.
    const offered: string[] = subRequests[0]!.body.tools.map((t: any) => t.name);
    expect(offered).not.toContain("subagents");
    expect(offered).not.toContain("request_directory_access");
    expect(offered).toContain("file_read");
  });

  test("a subagent cannot call a tool its parent could not", async () => {
    const ran: string[] = [];
    const tool = (name: string) =>
      defineTool({
        name,
        description: name,
        policy: "meta",
        readOnly: true,
        parameters: v.object({}),
        execute: async () => {
          ran.push(name);
          return `${name} ran`;
        },
      });
    const registry = createRegistry([tool("allowed"), tool("forbidden")]);
    const call = (name: string): StreamEvent[] => [
      { type: "tool_call", call: { type: "tool_call", id: `c-${name}`, name, arguments: {} } },
      { type: "done", stopReason: "tool_use" },
    ];
    const { wires, calls } = scriptedWires({ openai: [call("forbidden"), call("allowed"), text("finished")] });
    const parentSurface = [registry.all()[0]!]; // the parent only has "allowed"
    const parent = {
      caller: { trust: "operator", local: true, attended: true },
      conversation: { channel: "cli", chat: "p" },
      signal: new AbortController().signal,
      surface: () => parentSurface,
    } as unknown as ToolContext;
    const d = findProvider("openai")!;
    const routes = () => [
      {
        descriptor: d,
        model: d.defaultModel,
        target: { provider: "openai", baseUrl: "x", headers: {}, receiveTimeoutMs: 1000 },
      },
    ];
    const [result] = await runSubagents(
      [{ task: "try both" }],
      parent,
      {},
      { registry, router: { wires, fetch, sleep: async () => {} }, routes, agentName: "fermix", now: Date.now },
    );
    expect(result).toEqual({ ok: true, text: "finished" });
    expect(ran).toEqual(["allowed"]);
    expect((calls[0]!.request.tools ?? []).map((t) => t.name)).toEqual(["allowed"]);
    const refusal = calls[1]!.request.messages.find((m) => m.role === "tool");
    expect(refusal).toMatchObject({ isError: true, content: 'There is no tool named "forbidden" available here.' });
  });
});
