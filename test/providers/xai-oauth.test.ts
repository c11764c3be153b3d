import { afterEach, describe, expect, test } from "bun:test";
import { findProvider } from "../../src/providers/descriptors.ts";
import { probeProvider } from "../../src/providers/probe.ts";
import { type RoutedEvent, routeModelCall } from "../../src/providers/router.ts";
import { resolveRoutes } from "../../src/providers/routes.ts";
import { openaiResponsesWire as wire } from "../../src/providers/wires/openai-responses.ts";
import { WIRES } from "../../src/providers/wires/registry.ts";
import { type FakeLlm, startFakeOpenAIResponses } from "../fake/llm.ts";
import { memoryTokens, signedInTarget } from "./_sign-in.ts";
import { drain, request, toolLoopHistory, WEATHER, WEATHER_ARGS } from "./wires/harness.ts";

const STALE = "xai-oauth-access-stale-0123";
const FRESH = "xai-oauth-access-fresh-4567";
const GROK = "grok-4";

const open: FakeLlm[] = [];
afterEach(async () => {
  while (open.length) await open.pop()!.close();
});

async function signedIn(opts: { accepts?: string; next?: string[] } = {}) {
  const fake = await startFakeOpenAIResponses({ apiKey: opts.accepts ?? STALE });
  open.push(fake);
  const tokens = memoryTokens(STALE, { next: opts.next });
  const target = signedInTarget("xai", { base_url: fake.baseUrl, auth_mode: "oauth" }, tokens);
  return { fake, tokens, target };
}

describe("xai, auth_mode = oauth", () => {
  test("the Grok sign-in's token is the bearer on the Responses wire; no Codex headers", async () => {
    const { fake, target } = await signedIn();
    fake.enqueue({ kind: "text", text: "Sunny.", chunks: ["Sun", "ny."] });
    const out = await drain(wire, { target, request: request(GROK) });
    expect(out.deltas).toEqual(["Sun", "ny."]);
    const [sent] = fake.requests;
    expect(sent!.path).toBe("/v1/responses");
    expect(sent!.headers.authorization).toBe(`Bearer ${STALE}`);
    expect(sent!.headers["chatgpt-account-id"]).toBeUndefined();
    expect(sent!.headers.originator).toBeUndefined();
  });

  test("tool calls and their follow-up", async () => {
    const { fake, target } = await signedIn();
    fake.enqueue({ kind: "tool_calls", calls: [{ name: "get_weather", arguments: WEATHER_ARGS }] });
    const first = await drain(wire, { target, request: request(GROK, { tools: [WEATHER] }) });
    expect(first.toolCalls.map((c) => [c.name, c.arguments])).toEqual([["get_weather", WEATHER_ARGS]]);
    const second = await drain(wire, {
      target,
      request: request(GROK, { tools: [WEATHER], messages: toolLoopHistory(first.toolCalls) }),
    });
    expect(second.text).toBe("pong");
  });

  test("a 401 refreshes once and retries once", async () => {
    const { fake, tokens, target } = await signedIn({ accepts: FRESH, next: [FRESH] });
    const out = await drain(wire, { target, request: request(GROK) });
    expect(out.text).toBe("pong");
    expect(tokens.refreshes).toEqual([STALE]);
    expect(fake.requests.map((r) => r.headers.authorization)).toEqual([`Bearer ${STALE}`, `Bearer ${FRESH}`]);
  });

  test("a 403 says the Grok plan lacks API access: an auth failure, no refresh, no failover", async () => {
    const { fake, tokens, target } = await signedIn();
    fake.enqueue({ kind: "error", status: 403 });
    const out = await drain(wire, { target, request: request(GROK) });
    expect(tokens.refreshes).toEqual([]);
    expect(fake.requests).toHaveLength(1);
    expect(out.error).toMatchObject({ class: "auth", status: 403 });
    expect(out.error!.oauthResidual).toBeUndefined();
    expect(out.error!.message).toContain("your Grok plan lacks API access");
    expect(out.error!.message).toContain("not a stale token");

    // Through the router: the sentence surfaces as it is, and the next provider is not tried.
    const other = await startFakeOpenAIResponses({ apiKey: "sk-openai" });
    open.push(other);
    fake.enqueue({ kind: "error", status: 403 });
    const config = {
      fermix_core: {
        providers: {
          openai: { base_url: other.baseUrl, api_key: "sk-openai" },
          xai: { primary: true, auth_mode: "oauth" },
        },
      },
    };
    const routes = resolveRoutes(config as never, {}, { env: {}, secretsDir: "/x", tokenSource: () => tokens });
    routes[0] = { ...routes[0]!, target };
    const events: RoutedEvent[] = [];
    const call = { request: { system: "s", messages: request(GROK).messages }, firstCall: true };
    for await (const e of routeModelCall(routes, call, { wires: WIRES, fetch })) events.push(e);
    expect(other.requests).toHaveLength(0);
    expect(events.at(-1)).toMatchObject({ type: "error", error: { class: "auth", status: 403 } });
  });

  test("the doctor's probe lists models with the signed-in token, and says what a 403 means", async () => {
    const d = findProvider("xai")!;
    expect(d.oauth?.profile).toBe("xai_oauth");
    const tokens = memoryTokens(STALE, { next: [FRESH] });
    const seen: string[] = [];
    const models = (status: number) =>
      Object.assign(
        async (_url: string | URL | Request, init?: RequestInit) => {
          seen.push(new Headers(init?.headers).get("authorization") ?? "");
          return new Response(JSON.stringify({ data: [{ id: GROK }] }), {
            status: seen.length === 1 ? status : 200,
            headers: { "content-type": "application/json" },
          });
        },
        { preconnect: fetch.preconnect },
      ) as typeof fetch;
    const target = signedInTarget("xai", { auth_mode: "oauth", base_url: "http://127.0.0.1:9/v1" }, tokens);
    const route = { descriptor: d, model: GROK, target };
    const ok = await probeProvider(route, { fetch: models(401) });
    expect(ok.status).toBe("ok");
    expect(seen).toEqual([`Bearer ${STALE}`, `Bearer ${FRESH}`]);
    seen.length = 0;
    const forbidden = await probeProvider(route, { fetch: models(403) });
    expect(forbidden).toMatchObject({ status: "fail", httpStatus: 403 });
    expect(forbidden.detail).toContain("your Grok plan lacks API access");
  });
});
