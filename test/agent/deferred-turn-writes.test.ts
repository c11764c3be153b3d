/**
 * What a turn writes before its first model request only for the record waits until that request has gone out
 * (issue 31): the turn_start trace line, still written first, with the turn's own start time; and a new
 * conversation's owner mark, noted just before the turn's commit (agent/turn-runner.ts).
 */
import { Database } from "bun:sqlite";
import { describe, expect, test } from "bun:test";
import { join } from "node:path";
import { afterThisTick } from "../../src/agent/after-this-tick.ts";
import { failoverEvent } from "../../src/agent/loop-traces.ts";
import { runTurn, type ToolEnvironment } from "../../src/agent/turn.ts";
import { createApp } from "../../src/app.ts";
import { createRegistry } from "../../src/capabilities/registry.ts";
import { askLocally } from "../../src/gateway/local-ask.ts";
import { migrate } from "../../src/memory/db.ts";
import { createMessageStore } from "../../src/memory/messages.ts";
import type { Traces, TraceType } from "../../src/observability/traces.ts";
import type { FailoverInfo } from "../../src/providers/router.ts";
import { startFakeOpenAIResponses } from "../fake/llm.ts";
import { cleanupAfterEach } from "../fixture/cleanup.ts";
import { tempHome } from "../fixture/home.ts";
import { failure, scriptedRoutes, scriptedWires, text } from "../fixture/scripted-wire.ts";

const defer = cleanupAfterEach();
const START = Date.parse("2026-12-01T12:00:00Z");

describe("afterThisTick", () => {
  test("runs once the current tick is over, or at run(), and only once", async () => {
    const order: string[] = [];
    afterThisTick(() => order.push("later"));
    await Promise.resolve();
    order.push("microtask");
    await new Promise((next) => setImmediate(next));
    expect(order).toEqual(["microtask", "later"]);
    const early = afterThisTick(() => order.push("early"));
    early();
    early();
    await new Promise((next) => setImmediate(next));
    expect(order).toEqual(["microtask", "later", "early"]);
  });

  test("a failure is dropped: neither its caller nor the tick after sees it", async () => {
    const failing = afterThisTick(() => {
      throw new Error("disk full");
    });
    expect(() => failing()).not.toThrow();
    afterThisTick(() => {
      throw new Error("unheard");
    });
    await new Promise((next) => setImmediate(next));
  });
});

describe("the turn_start trace line", () => {
  function setup(scripts: Parameters<typeof scriptedWires>[0]) {
    const db = new Database(":memory:");
    migrate(db);
    const lines: Array<{ type: TraceType; at?: number } & Record<string, unknown>> = [];
    const traces: Traces = { capture: false, write: (type, record, at) => void lines.push({ type, at, ...record }) };
    const { wires } = scriptedWires(scripts);
    const routes = scriptedRoutes;
    const deps = {
      store: createMessageStore(db),
      routes,
      router: {
        wires,
        fetch,
        sleep: async () => {},
        onFailover: (f: FailoverInfo) => traces.write("agent_event", failoverEvent(f)),
      },
      registry: createRegistry([]),
      toolEnvironment: () => ({}) as ToolEnvironment,
      traces,
      now: () => START,
      agentName: "fermix",
      timezone: "UTC",
    };
    return { deps, lines };
  }

  test("comes first, stamped with the turn's start, even when the whole turn ends within one tick", async () => {
    const { deps, lines } = setup({ openai: [text("hi")] });
    await runTurn({ key: { channel: "cli", chat: "ses_a" }, text: "hello" }, deps);
    expect(lines.map((l) => l.event ?? l.type)).toEqual(["turn_start", "llm_call", "turn_end"]);
    expect(lines[0]).toMatchObject({ type: "agent_event", at: START, tools_sent: 0 });
  });

  test("comes before a failover's line, which the app writes itself", async () => {
    const { deps, lines } = setup({
      openai: [0, 1, 2].map(() => failure("openai", "transient", { status: 503 })),
      anthropic: [text("from the fallback")],
    });
    await runTurn({ key: { channel: "cli", chat: "ses_b" }, text: "ping" }, deps);
    const events = lines.filter((l) => l.type === "agent_event").map((l) => l.event);
    expect(events).toEqual(["turn_start", "provider_failover", "turn_end"]);
  });

  test("is written while the turn waits for its answer", async () => {
    const { deps, lines } = setup({});
    let release!: () => void;
    const waiting = new Promise<void>((resolve) => {
      release = resolve;
    });
    deps.router.wires = {
      ...deps.router.wires,
      "openai-responses": {
        id: "openai-responses",
        async *stream() {
          await waiting;
          yield* text("late");
        },
      },
    } as typeof deps.router.wires;
    const turn = runTurn({ key: { channel: "cli", chat: "ses_c" }, text: "slow" }, deps);
    await new Promise((next) => setImmediate(next));
    expect(lines.map((l) => l.event)).toEqual(["turn_start"]);
    release();
    await turn;
  });
});

describe("a new conversation's owner mark", () => {
  test("is stored by the time the ask answers", async () => {
    const h = tempHome();
    defer(() => h[Symbol.asyncDispose]());
    const fake = await startFakeOpenAIResponses({ apiKey: "sk-test-deferred-0123456789" });
    defer(() => fake.close());
    fake.setDefault({ kind: "text", text: "pong" });
    const app = await createApp({
      env: {
        FERMIX_HOME: h.home,
        HOME: h.userHome,
        OPENAI_API_KEY: "sk-test-deferred-0123456789",
        OPENAI_BASE_URL: fake.baseUrl,
      },
      role: "daemon",
    });
    defer(() => app.close());
    const { session_id } = await askLocally(app, { text: "ping" });
    const db = new Database(join(h.home, "memory.db"), { readonly: true });
    defer(() => db.close());
    expect(db.query("SELECT trust FROM conversation_trust WHERE chat = ?").all(session_id)).toEqual([
      { trust: "operator" },
    ]);
  });
});
