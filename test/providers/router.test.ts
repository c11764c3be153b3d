import { describe, expect, test } from "bun:test";
import { findProvider } from "../../src/providers/descriptors.ts";
import { RETRY_ATTEMPTS, type RoutedEvent, routeModelCall } from "../../src/providers/router.ts";
import type { Route } from "../../src/providers/routes.ts";
import { failure, scriptedWires, text } from "../fixture/scripted-wire.ts";

function route(id: string): Route {
  const d = findProvider(id)!;
  return {
    descriptor: d,
    model: d.defaultModel,
    target: { provider: id, baseUrl: "http://x", headers: {}, receiveTimeoutMs: 1000 },
  };
}

async function collect(routes: Route[], scripts: Parameters<typeof scriptedWires>[0], firstCall = true) {
  const { wires, calls } = scriptedWires(scripts);
  const sleeps: number[] = [];
  const failovers: string[] = [];
  const events: RoutedEvent[] = [];
  const call = { request: { system: "s", messages: [] }, firstCall };
  const deps = {
    wires,
    fetch,
    sleep: async (ms: number) => {
      sleeps.push(ms);
    },
    // No jitter: the backoff's waits are read at their ceilings.
    random: () => 0,
    onFailover: (i: { from: string; to: string }) => failovers.push(`${i.from}->${i.to}`),
  };
  for await (const e of routeModelCall(routes, call, deps)) events.push(e);
  const said = events.flatMap((e) => (e.type === "text_delta" ? [e.text] : [])).join("");
  const error = events.find((e) => e.type === "error");
  return { calls: calls.map((c) => c.provider), sleeps, failovers, said, error };
}

describe("router", () => {
  test("a transient failure is retried on the same provider with growing backoff", async () => {
    const r = await collect([route("openai"), route("anthropic")], {
      openai: [failure("openai", "transient"), text("healed")],
    });
    expect(r.calls).toEqual(["openai", "openai"]);
    expect(r.said).toBe("healed");
    expect(r.sleeps).toEqual([200]);
    expect(r.failovers).toEqual([]);
  });

  test("a primary that keeps failing transiently fails over after its retry budget", async () => {
    const r = await collect([route("openai"), route("anthropic")], {
      openai: Array.from({ length: RETRY_ATTEMPTS + 1 }, () => failure("openai", "transient", { status: 503 })),
      anthropic: [text("from the fallback")],
    });
    expect(r.calls).toEqual(["openai", "openai", "openai", "anthropic"]);
    expect(r.sleeps).toEqual([200, 400]);
    expect(r.failovers).toEqual(["openai->anthropic"]);
    expect(r.said).toBe("from the fallback");
    expect(r.error).toBeUndefined();
  });

  test("a rate limit fails over at once (no same-provider retry)", async () => {
    const r = await collect([route("openai"), route("anthropic")], {
      openai: [failure("openai", "rate_limit")],
      anthropic: [text("ok")],
    });
    expect(r.calls).toEqual(["openai", "anthropic"]);
  });

  test.each(["auth", "context_length", "invalid_request"])("%s never retries or fails over", async (cls) => {
    const r = await collect([route("openai"), route("anthropic")], { openai: [failure("openai", cls)] });
    expect(r.calls).toEqual(["openai"]);
    expect(r.error).toMatchObject({ type: "error", error: { class: cls, provider: "openai" } });
  });

  test("a cut after visible text never fails over", async () => {
    const r = await collect([route("openai"), route("anthropic")], {
      openai: [[{ type: "text_delta", text: "half an ans" }, ...failure("openai", "transient")]],
    });
    expect(r.calls).toEqual(["openai"]);
    expect(r.said).toBe("half an ans");
    expect(r.error).toMatchObject({ error: { class: "transient" } });
  });

  test("continuation calls (not the turn's first) never fail over", async () => {
    const r = await collect(
      [route("openai"), route("anthropic")],
      { openai: Array.from({ length: RETRY_ATTEMPTS + 1 }, () => failure("openai", "transient")) },
      false,
    );
    expect(r.calls).toEqual(["openai", "openai", "openai"]);
    expect(r.error).toBeDefined();
  });

  test("when every route fails the last failure surfaces", async () => {
    const r = await collect([route("openai"), route("ollama")], {
      openai: [failure("openai", "rate_limit")],
      ollama: Array.from({ length: RETRY_ATTEMPTS + 1 }, () => failure("ollama", "transient")),
    });
    expect(r.error).toMatchObject({ error: { provider: "ollama", class: "transient" } });
  });
});
