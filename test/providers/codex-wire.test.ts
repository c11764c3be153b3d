import { afterEach, describe, expect, test } from "bun:test";
import * as v from "valibot";
import { Config } from "../../src/config/schema.ts";
import { FermixError } from "../../src/error.ts";
import { PROVIDERS } from "../../src/providers/descriptors.ts";
import { type RoutedEvent, routeModelCall } from "../../src/providers/router.ts";
import { resolveRoutes } from "../../src/providers/routes.ts";
import type { StreamEvent, WireTarget } from "../../src/providers/types.ts";
import { openaiResponsesWire as wire } from "../../src/providers/wires/openai-responses.ts";
import { WIRES } from "../../src/providers/wires/registry.ts";
import { type FakeCodex, startFakeCodex } from "../fake/codex.ts";
import { startFakeOpenAIResponses } from "../fake/llm.ts";
import { chatgptJwt, memoryTokens, signedInTarget } from "./_sign-in.ts";
import { drain, NOW, request, toolLoopHistory, WEATHER, WEATHER_ARGS } from "./wires/harness.ts";

const ACCOUNT = "acct-7f3c2a";
const STALE = chatgptJwt(ACCOUNT);
const FRESH = `${chatgptJwt(ACCOUNT)}.fresh`;
const MODEL = "gpt-5.5";

const open: Array<{ close(): Promise<void> }> = [];
afterEach(async () => {
  while (open.length) await open.pop()!.close();
});

async function codex(opts: { token?: string; block?: Record<string, unknown>; next?: string[] } = {}) {
  const fake: FakeCodex = await startFakeCodex({ accessToken: opts.token ?? STALE, accountId: ACCOUNT });
  open.push(fake);
  const tokens = memoryTokens(STALE, { next: opts.next });
  const target = signedInTarget("openai_codex", { base_url: fake.baseUrl, ...opts.block }, tokens);
  return { fake, tokens, target };
}

/** Drains with a warn sink, keeping the wire contract checks of the harness. */
async function drainWarned(target: WireTarget, model = MODEL) {
  const warnings: string[] = [];
  const events: StreamEvent[] = [];
  for await (const e of wire.stream(
    { target, request: request(model) },
    { fetch, now: () => NOW, warn: (m) => warnings.push(m) },
  )) {
    events.push(e);
  }
  return { events, warnings, last: events.at(-1)! };
}

describe("openai_codex provider", () => {
  test("first in catalog order, signed in only, on the Responses wire at the ChatGPT Codex endpoint", () => {
    expect(PROVIDERS.map((p) => p.id)).toEqual([
      "openai_codex",
      "openai",
      "anthropic",
      "xai",
      "openrouter",
      "mistral",
      "ollama",
    ]);
    const d = PROVIDERS[0]!;
    expect(d).toMatchObject({
      wire: "openai-responses",
      defaultBaseUrl: "https://chatgpt.com/backend-api/codex",
      authModes: ["oauth"],
      defaultModel: "gpt-5.5",
    });
  });

  test("config: the block takes fast and reasoning_effort but no api_key", () => {
    const ok = v.safeParse(Config, {
      fermix_core: { providers: { openai_codex: { primary: true, fast: true, reasoning_effort: "high" } } },
    });
    expect(ok.success).toBe(true);
    const keyed = v.safeParse(Config, { fermix_core: { providers: { openai_codex: { api_key: "sk-x" } } } });
    expect(keyed.success).toBe(false);
  });

  test("a route needs no key; its idle window is 60 s, 120 s at xhigh; it leads the chain in catalog order", () => {
    const tokens = memoryTokens(STALE);
    const secrets = { env: {}, secretsDir: "/nonexistent", tokenSource: () => tokens };
    const config = {
      fermix_core: { providers: { openai: { api_key: "sk-x" }, openai_codex: { fast: true } } },
    };
    const routes = resolveRoutes(config as never, {}, secrets);
    expect(routes.map((r) => r.descriptor.id)).toEqual(["openai_codex", "openai"]);
    expect(routes[0]!.target).toMatchObject({ apiKey: undefined, receiveTimeoutMs: 60_000, codex: { fast: true } });
    expect(routes[0]!.target.oauth?.login).toBe("fermix auth login --provider codex");
    const xhigh = resolveRoutes(
      { fermix_core: { providers: { openai_codex: { reasoning_effort: "xhigh" } } } } as never,
      {},
      secrets,
    );
    expect(xhigh[0]!.target.receiveTimeoutMs).toBe(120_000);
    expect(xhigh[0]!.effort).toBe("xhigh");
  });

  test("the request: bearer, account id, originator, beta header; store false, stream, encrypted reasoning, no cap", async () => {
    const { fake, target } = await codex({ block: { reasoning_effort: "high" } });
    fake.enqueue({ kind: "text", text: "Rainy in Lyon.", chunks: ["Rainy ", "in ", "Lyon."] });
    const out = await drain(wire, {
      target,
      request: { ...request(MODEL, { tools: [WEATHER], maxOutputTokens: 4000 }), effort: "high" },
    });
    expect(out.error).toBeUndefined();
    expect(out.deltas).toEqual(["Rainy ", "in ", "Lyon."]);
    expect(out.done?.stopReason).toBe("stop");
    const [sent] = fake.requests;
    expect(sent!.path).toBe("/backend-api/codex/responses");
    expect(sent!.headers).toMatchObject({
      authorization: `Bearer ${STALE}`,
      "chatgpt-account-id": ACCOUNT,
      "openai-beta": "responses=experimental",
      originator: "pi",
      accept: "text/event-stream",
    });
    expect(sent!.body).toMatchObject({
      model: MODEL,
      instructions: "You are terse.",
      store: false,
      stream: true,
      include: ["reasoning.encrypted_content"],
      reasoning: { effort: "high", summary: "auto" },
    });
    expect(sent!.body).not.toHaveProperty("max_output_tokens");
    expect(sent!.body).not.toHaveProperty("service_tier");
  });

  test("fast = true asks for the priority service tier", async () => {
    const { fake, target } = await codex({ block: { fast: true } });
    const out = await drain(wire, { target, request: request(MODEL) });
    expect(out.text).toBe("pong");
    expect(fake.requests[0]!.body.service_tier).toBe("priority");
  });

  test("tool calls arrive whole, and the follow-up with their results is accepted", async () => {
    const { fake, target } = await codex();
    fake.enqueue({ kind: "tool_calls", calls: [{ name: "get_weather", arguments: WEATHER_ARGS }] });
    const first = await drain(wire, { target, request: request(MODEL, { tools: [WEATHER] }) });
    expect(first.toolCalls).toEqual([
      { type: "tool_call", id: expect.any(String), name: "get_weather", arguments: WEATHER_ARGS },
    ]);
    expect(first.done?.stopReason).toBe("tool_use");
    fake.enqueue({ kind: "text", text: "12°C and raining." });
    const second = await drain(wire, {
      target,
      request: request(MODEL, { tools: [WEATHER], messages: toolLoopHistory(first.toolCalls) }),
    });
    expect(second.text).toBe("12°C and raining.");
  });

  test("a 401 refreshes the token once and retries once with the new one", async () => {
    const { fake, tokens, target } = await codex({ token: FRESH, next: [FRESH] });
    const out = await drain(wire, { target, request: request(MODEL) });
    expect(out.text).toBe("pong");
    expect(tokens.refreshes).toEqual([STALE]);
    expect(fake.requests.map((r) => r.headers.authorization)).toEqual([`Bearer ${STALE}`, `Bearer ${FRESH}`]);
  });

  test("still refused after the refresh: an auth failure that may fail over, says how to sign in, hides the token", async () => {
    const other = `${chatgptJwt(ACCOUNT)}.other`;
    const { fake, tokens, target } = await codex({ token: "accepted-by-nobody", next: [other] });
    const out = await drain(wire, { target, request: request(MODEL) });
    expect(fake.requests).toHaveLength(2);
    expect(tokens.refreshes).toHaveLength(1);
    expect(out.error).toMatchObject({ class: "auth", status: 401, oauthResidual: true });
    expect(out.error!.message).toContain("fermix auth login --provider codex");
    expect(out.error!.message).not.toContain(other);
    expect(out.error!.message).not.toContain(STALE);
  });

  test("a refresh the store refuses is the store's sentence, as an auth failure", async () => {
    const { target } = await codex({ token: "accepted-by-nobody" });
    const out = await drain(wire, { target, request: request(MODEL) });
    expect(out.error).toMatchObject({ class: "auth", oauthResidual: true });
    expect(out.error!.message).toContain("Reconnect needed");
  });

  test("not signed in: no request is made and the failure says to sign in", async () => {
    const fake = await startFakeCodex({ accessToken: STALE, accountId: ACCOUNT });
    open.push(fake);
    const tokens = memoryTokens(STALE, { missing: "not logged in (no openai_codex entry in /h/auth.json)" });
    const target = signedInTarget("openai_codex", { base_url: fake.baseUrl }, tokens);
    const out = await drain(wire, { target, request: request(MODEL) });
    expect(fake.requests).toHaveLength(0);
    expect(out.error).toMatchObject({ class: "auth" });
    expect(out.error!.message).toBe(
      "openai_codex: not logged in (no openai_codex entry in /h/auth.json); sign in with: fermix auth login --provider codex",
    );
  });

  test("a busy sign-in lock is a flake to retry, not a refused sign-in", async () => {
    const fake = await startFakeCodex({ accessToken: STALE, accountId: ACCOUNT });
    open.push(fake);
    const busy = {
      token: async () => {
        throw new FermixError(
          "auth_busy",
          "Another Fermix process is refreshing or signing in to this account. Try again shortly.",
        );
      },
      refreshAfterUnauthorized: async () => ({ accessToken: STALE }),
    };
    const target = signedInTarget("openai_codex", { base_url: fake.baseUrl }, busy);
    const out = await drain(wire, { target, request: request(MODEL) });
    expect(out.error).toMatchObject({ class: "transient" });
    expect(out.error!.message).toContain("Another Fermix process is refreshing");
  });

  test("the account id comes from the token's JWT when the profile does not name it", async () => {
    const { fake, target } = await codex();
    await drain(wire, { target, request: request(MODEL) });
    expect(fake.requests[0]!.headers["chatgpt-account-id"]).toBe(ACCOUNT);
  });

  test("a body rule the backend states as detail is quoted", async () => {
    const { fake, target } = await codex();
    // The wire never sends a bad body, so break one on the way out: the fake's rule is what is under test.
    const broken: typeof fetch = Object.assign(
      (url: string | URL | Request, init?: RequestInit) =>
        fetch(url, { ...init, body: JSON.stringify({ ...JSON.parse(String(init!.body)), store: true }) }),
      { preconnect: fetch.preconnect },
    );
    const events: StreamEvent[] = [];
    for await (const e of wire.stream({ target, request: request(MODEL) }, { fetch: broken })) events.push(e);
    expect(fake.requests).toHaveLength(1);
    expect(events.at(-1)).toMatchObject({
      type: "error",
      error: { class: "invalid_request", status: 400, message: expect.stringContaining("Store must be set to false") },
    });
  });
});

describe("a Codex 200 that delivered nothing", () => {
  const created = { type: "response.created", response: { id: "resp_1", status: "in_progress", output: [] } };

  test("a declared overload is the provider being unavailable: retryable, its own sentence quoted", async () => {
    const { fake, target } = await codex();
    const sentence = "Our servers are currently overloaded. Please try again later.";
    fake.enqueueFrames([
      created,
      {
        type: "response.failed",
        response: { id: "resp_1", status: "failed", error: { code: "server_error", message: sentence } },
      },
    ]);
    const out = await drain(wire, { target, request: request(MODEL) });
    expect(out.error).toMatchObject({ class: "transient", vendorCode: "server_error" });
    expect(out.error!.message).toBe(`openai_codex: ${sentence}`);
  });

  test("a declared failure of another kind is not retried", async () => {
    const { fake, target } = await codex();
    fake.enqueueFrames([
      created,
      { type: "error", code: "invalid_prompt", message: "Invalid prompt: your prompt was flagged." },
    ]);
    const out = await drain(wire, { target, request: request(MODEL) });
    expect(out.error).toMatchObject({ class: "invalid_request", vendorCode: "invalid_prompt" });
  });

  test("an incomplete response that generated nothing is a declared failure, not an empty answer", async () => {
    const { fake, target } = await codex();
    fake.enqueueFrames([
      created,
      {
        type: "response.incomplete",
        response: { id: "resp_1", status: "incomplete", incomplete_details: { reason: "max_output_tokens" } },
      },
    ]);
    const out = await drain(wire, { target, request: request(MODEL) });
    expect(out.done).toBeUndefined();
    expect(out.error).toMatchObject({ class: "invalid_request", vendorCode: "max_output_tokens" });
  });

  test("a stream that ends with no reason is a transport close: retryable", async () => {
    const { fake, target } = await codex();
    fake.enqueueFrames([created]);
    const out = await drain(wire, { target, request: request(MODEL) });
    expect(out.error).toMatchObject({ class: "transient", vendorCode: "stream_closed" });
    fake.enqueueFrames([created], { cut: true });
    const reset = await drain(wire, { target, request: request(MODEL) });
    expect(reset.error).toMatchObject({ class: "transient" });
  });

  test("output that never said it finished is kept, with a warning", async () => {
    const { fake, target } = await codex();
    const delta = (d: string) => ({ type: "response.output_text.delta", item_id: "msg_1", output_index: 0, delta: d });
    fake.enqueueFrames([created, delta("Half "), delta("an answer")]);
    const ended = await drainWarned(target);
    expect(ended.last).toEqual({ type: "done", stopReason: "stop" });
    expect(ended.events.flatMap((e) => (e.type === "text_delta" ? [e.text] : [])).join("")).toBe("Half an answer");
    expect(ended.warnings).toEqual([expect.stringContaining("without saying the response finished")]);

    fake.enqueueFrames([created, delta("Cut short")], { cut: true });
    const cut = await drainWarned(target);
    expect(cut.last).toEqual({ type: "done", stopReason: "stop" });
    expect(cut.warnings).toHaveLength(1);
  });

  test("the OpenAI API keeps its stricter reading: output without completion is an error there", async () => {
    const fake = await startFakeOpenAIResponses({ apiKey: "sk-test" });
    open.push(fake);
    fake.enqueue({ kind: "cut", text: "Half an answer" });
    const config = { fermix_core: { providers: { openai: { base_url: fake.baseUrl, api_key: "sk-test" } } } };
    const [route] = resolveRoutes(config, {}, { env: {}, secretsDir: "/nonexistent" });
    const out = await drain(wire, { target: route!.target, request: request(MODEL) });
    expect(out.error?.class).toBe("transient");
  });
});

describe("failover after a signed-in failure", () => {
  test("a residual OAuth failure on the first call fails over to the next provider", async () => {
    const { fake: codexFake, target } = await codex({ token: "accepted-by-nobody", next: ["still-wrong"] });
    const openai = await startFakeOpenAIResponses({ apiKey: "sk-test" });
    open.push(openai);
    openai.enqueue({ kind: "text", text: "from the fallback" });
    const config = {
      fermix_core: { providers: { openai_codex: {}, openai: { base_url: openai.baseUrl, api_key: "sk-test" } } },
    };
    const tokens = memoryTokens("x");
    const routes = resolveRoutes(
      config as never,
      {},
      { env: {}, secretsDir: "/nonexistent", tokenSource: () => tokens },
    );
    routes[0] = { ...routes[0]!, target };
    const failovers: string[] = [];
    const events: RoutedEvent[] = [];
    const call = { request: { system: "s", messages: request(MODEL).messages }, firstCall: true };
    const deps = {
      wires: WIRES,
      fetch,
      onFailover: (i: { from: string; to: string }) => failovers.push(`${i.from}->${i.to}`),
    };
    for await (const e of routeModelCall(routes, call, deps)) events.push(e);
    expect(codexFake.requests).toHaveLength(2);
    expect(failovers).toEqual(["openai_codex->openai"]);
    expect(events.flatMap((e) => (e.type === "text_delta" ? [e.text] : [])).join("")).toBe("from the fallback");
  });
});
