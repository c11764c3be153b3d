/**
 * Two things a turn must never hide: an answer cut at the model's output limit (TurnResult.truncated, the
 * turn_end trace), and a failover to the next provider (an agent_event line beside the log line).
 */
import { Database } from "bun:sqlite";
import { describe, expect, test } from "bun:test";
import { failoverEvent } from "../../src/agent/loop-traces.ts";
import { EMPTY_TRUNCATED_REPLY, runTurn, type ToolEnvironment } from "../../src/agent/turn.ts";
import { createRegistry } from "../../src/capabilities/registry.ts";
import { migrate } from "../../src/memory/db.ts";
import { createMessageStore } from "../../src/memory/messages.ts";
import type { Traces, TraceType } from "../../src/observability/traces.ts";
import { findProvider } from "../../src/providers/descriptors.ts";
import type { FailoverInfo } from "../../src/providers/router.ts";
import type { StreamEvent } from "../../src/providers/types.ts";
import { failure, scriptedRoutes, scriptedWires, text } from "../fixture/scripted-wire.ts";

const key = { channel: "cli", chat: "ses_trunc" };
const cut = (t: string): StreamEvent[] => [
  { type: "text_delta", text: t },
  { type: "done", stopReason: "length" },
];

function setup(scripts: Record<string, StreamEvent[][]>) {
  const db = new Database(":memory:");
  migrate(db);
  const store = createMessageStore(db);
  const { wires } = scriptedWires(scripts);
  const lines: Array<{ type: TraceType } & Record<string, unknown>> = [];
  const traces: Traces = { capture: false, write: (type, record) => void lines.push({ type, ...record }) };
  const failovers: FailoverInfo[] = [];
  const routes = scriptedRoutes;
  const deps = {
    store,
    routes,
    // As app.ts wires it: the log line's place also writes the failover's agent_event.
    router: {
      wires,
      fetch,
      sleep: async () => {},
      onFailover: (f: FailoverInfo) => {
        failovers.push(f);
        traces.write("agent_event", failoverEvent(f));
      },
    },
    registry: createRegistry([]),
    toolEnvironment: () => ({}) as ToolEnvironment,
    traces,
    now: () => Date.parse("2026-12-01T12:00:00Z"),
    agentName: "fermix",
    timezone: "UTC",
  };
  const events = (name: string) => lines.filter((l) => l.type === "agent_event" && l.event === name);
  return { store, deps, lines, events, failovers };
}

describe("a truncated answer", () => {
  test("is answered and committed, and the result and the turn_end trace say it was cut", async () => {
    const { store, deps, events } = setup({ openai: [cut("The first half of")] });
    const result = await runTurn({ key, text: "tell me everything" }, deps);
    expect(result).toMatchObject({ response: "The first half of", provider: "openai", truncated: true });
    expect(store.history(key)).toHaveLength(2);
    expect(events("turn_end")).toEqual([expect.objectContaining({ status: "ok", truncated: true })]);
  });

  test("a complete answer carries no truncated flag", async () => {
    const { deps, events } = setup({ openai: [text("All of it.")] });
    const result = await runTurn({ key, text: "hi" }, deps);
    expect(result.truncated).toBeUndefined();
    expect(events("turn_end")[0]).not.toHaveProperty("truncated");
  });

  test("only the final answer counts: a cut before a tool call's results is not the answer", async () => {
    const { deps } = setup({
      openai: [
        [
          { type: "text_delta", text: "Looking." },
          { type: "tool_call", call: { type: "tool_call", id: "c1", name: "nope", arguments: {} } },
          { type: "done", stopReason: "tool_use" },
        ],
        cut("Half an ans"),
      ],
    });
    const result = await runTurn({ key, text: "go" }, deps);
    expect(result.truncated).toBe(true);
    expect(result.response).toBe("Half an ans");
  });

  test("all of the output spent before any answer text: an honest error that names the limit", async () => {
    const { store, deps } = setup({ openai: [[{ type: "done", stopReason: "length" }]] });
    await expect(runTurn({ key, text: "think hard" }, deps)).rejects.toMatchObject({
      code: "empty_completion",
      message: EMPTY_TRUNCATED_REPLY,
    });
    expect(store.history(key)).toEqual([]);
  });
});

describe("a failover", () => {
  test("writes a provider_failover agent_event with from/to route, reason class and the turn's session", async () => {
    const { deps, events, failovers } = setup({
      openai: [
        failure("openai", "transient", { status: 503 }),
        failure("openai", "transient", { status: 503 }),
        failure("openai", "transient", { status: 503 }),
      ],
      anthropic: [text("from the fallback")],
    });
    const result = await runTurn({ key, text: "ping" }, deps);
    expect(result.provider).toBe("anthropic");
    expect(failovers).toHaveLength(1);
    const [start] = events("turn_start");
    expect(events("provider_failover")).toEqual([
      {
        type: "agent_event",
        session_id: start!.session_id,
        event: "provider_failover",
        from: "openai",
        from_model: findProvider("openai")!.defaultModel,
        to: "anthropic",
        to_model: findProvider("anthropic")!.defaultModel,
        reason: "transient",
        http_status: 503,
        message: "openai transient",
      },
    ]);
  });

  test("a rate limit fails over with reason rate_limit; an auth failure never fails over, so no event", async () => {
    const limited = setup({
      openai: [failure("openai", "rate_limit", { status: 429 })],
      anthropic: [text("ok")],
    });
    await runTurn({ key, text: "ping" }, limited.deps);
    expect(limited.events("provider_failover").map((e) => e.reason)).toEqual(["rate_limit"]);

    const refused = setup({ openai: [failure("openai", "auth", { status: 401 })], anthropic: [text("never")] });
    await expect(runTurn({ key, text: "ping" }, refused.deps)).rejects.toBeDefined();
    expect(refused.events("provider_failover")).toEqual([]);
  });

  test("an untraced call (housekeeping) still gets its event, without a session id", () => {
    const line = failoverEvent({
      from: "openai",
      fromModel: "gpt-5.5",
      to: "ollama",
      toModel: "llama3.2",
      failure: { class: "transient", provider: "openai", message: "openai timed out" },
    });
    expect(line).toEqual({
      event: "provider_failover",
      from: "openai",
      from_model: "gpt-5.5",
      to: "ollama",
      to_model: "llama3.2",
      reason: "transient",
      message: "openai timed out",
    });
  });
});
