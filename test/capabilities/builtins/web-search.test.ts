import { describe, expect, test } from "bun:test";
import * as v from "valibot";
import { parseDuckDuckGoHtml, unwrapLink } from "../../../src/capabilities/builtins/duckduckgo.ts";
import {
  createWebSearchTool,
  type WebSearchSettings,
  webSearchSettings,
  webSearchTool,
} from "../../../src/capabilities/builtins/web-search.ts";
import { createLoopbackDoor, useFakeServers } from "../../net/loopback-door.ts";
import {
  BRAVE_HITS,
  braveError,
  bravePage,
  CHALLENGE_PAGE,
  DDG_HITS,
  duckduckgoPage,
  type Hit,
} from "./search-fixtures.ts";

const DDG_ADDRESS = "1.1.1.1";
const BRAVE_ADDRESS = "1.0.0.1";
const OTHER_ADDRESS = "8.8.8.8";
const names = {
  "html.duckduckgo.com": [DDG_ADDRESS],
  "api.search.brave.com": [BRAVE_ADDRESS],
  "search.example.org": [OTHER_ADDRESS],
};

const serve = useFakeServers();

type Seen = { url: URL; headers: Headers };

function fakeDuckDuckGo(answer: (query: string) => Response = (q) => html(duckduckgoPage(q, DDG_HITS))) {
  const seen: Seen[] = [];
  const fake = serve((request) => {
    const url = new URL(request.url);
    seen.push({ url, headers: request.headers });
    if (url.pathname !== "/html/") return new Response("not found", { status: 404 });
    return answer(url.searchParams.get("q") ?? "");
  });
  return { ...fake, seen };
}

function fakeBrave(answer: (request: Request) => Response = (r) => json(bravePage(query(r), BRAVE_HITS))) {
  const seen: Seen[] = [];
  const fake = serve((request) => {
    const url = new URL(request.url);
    seen.push({ url, headers: request.headers });
    if (url.pathname !== "/res/v1/web/search") return json(braveError(404, "NOT_FOUND", "no such route"), 404);
    // The real API refuses a request without a key before anything else.
    if (!request.headers.get("x-subscription-token")) {
      return json(braveError(422, "SUBSCRIPTION_TOKEN_INVALID", "The provided subscription token is invalid."), 422);
    }
    return answer(request);
  });
  return { ...fake, seen };
}

const query = (request: Request) => new URL(request.url).searchParams.get("q") ?? "";
const html = (body: string, status = 200) =>
  new Response(body, { status, headers: { "content-type": "text/html; charset=UTF-8" } });
const json = (body: unknown, status = 200) => Response.json(body, { status });

function setup(routes: Record<string, string>, config?: WebSearchSettings, refuse?: string[]) {
  const door = createLoopbackDoor({ names, routes, refuse });
  const warnings: unknown[][] = [];
  const ctx = {
    net: door.net,
    signal: new AbortController().signal,
    log: { warn: (...a: unknown[]) => warnings.push(a) },
    config,
  };
  return { door, ctx, warnings };
}

describe("web_search on DuckDuckGo", () => {
  test("numbers titles, unwrapped URLs and snippets, and drops the ad", async () => {
    const ddg = fakeDuckDuckGo();
    const { ctx, door } = setup({ [DDG_ADDRESS]: ddg.origin });
    const result = await webSearchTool.execute({ query: "bun runtime & tests" }, ctx);

    expect(result.isError).toBeUndefined();
    expect(result.content).toBe(
      [
        `Results for "bun runtime & tests" from DuckDuckGo:`,
        "",
        "1. Bun — A fast all-in-one JavaScript runtime",
        "   https://bun.sh/",
        "   Bundle, install, and run JavaScript & TypeScript — all in Bun.",
        "",
        "2. Bun (software) - Wikipedia",
        "   https://en.wikipedia.org/wiki/Bun_(software)",
        "   Bun is a JavaScript runtime, package manager and test runner…",
        "",
        "3. oven-sh/bun: Incredibly fast JavaScript runtime",
        "   https://github.com/oven-sh/bun?tab=readme-ov-file#install",
        "   Bun is an all-in-one toolkit for JavaScript and TypeScript apps.",
      ].join("\n"),
    );
    expect(ddg.seen[0]!.url.searchParams.get("q")).toBe("bun runtime & tests");
    expect(ddg.seen[0]!.headers.get("host")).toBe("html.duckduckgo.com");
    expect(door.calls[0]!.url).toStartWith(`https://${DDG_ADDRESS}:443/html/?q=`);
    expect(door.calls[0]!.init.tls?.serverName).toBe("html.duckduckgo.com");
  });

  test("max_results, then the configured count, limit the list", async () => {
    const ddg = fakeDuckDuckGo();
    const { ctx } = setup({ [DDG_ADDRESS]: ddg.origin }, { maxResults: 2 });
    expect((await webSearchTool.execute({ query: "bun", max_results: 1 }, ctx)).content).not.toContain("2. ");
    const two = await webSearchTool.execute({ query: "bun" }, ctx);
    expect(two.content).toContain("2. ");
    expect(two.content).not.toContain("3. ");
  });

  test("no results is an answer, not an error", async () => {
    const ddg = fakeDuckDuckGo((q) => html(duckduckgoPage(q, [])));
    const { ctx } = setup({ [DDG_ADDRESS]: ddg.origin });
    const result = await webSearchTool.execute({ query: "qwxzv plonk" }, ctx);
    expect(result.isError).toBeUndefined();
    expect(result.content).toStartWith(`No results for "qwxzv plonk" from DuckDuckGo.`);
  });

  test("a challenge page or an error status is a clear error", async () => {
    for (const answer of [() => html(CHALLENGE_PAGE, 202), () => html(CHALLENGE_PAGE), () => html("busy", 503)]) {
      const ddg = fakeDuckDuckGo(answer);
      const { ctx } = setup({ [DDG_ADDRESS]: ddg.origin });
      const result = await webSearchTool.execute({ query: "bun" }, ctx);
      expect(result.isError).toBe(true);
      expect(result.content).toMatch(/^web_search failed: DuckDuckGo .*(limiting automated searches|HTTP 503)/);
    }
  });

  test("the endpoint is injectable", async () => {
    const ddg = fakeDuckDuckGo();
    const { ctx } = setup({ [OTHER_ADDRESS]: ddg.origin });
    const tool = createWebSearchTool({ duckduckgo: "https://search.example.org/html/" });
    const result = await tool.execute({ query: "bun" }, ctx);
    expect(result.content).toContain("1. Bun");
    expect(ddg.seen[0]!.headers.get("host")).toBe("search.example.org");
  });
});

describe("web_search on Brave", () => {
  const brave = (apiKey?: string): WebSearchSettings => ({ backend: "brave", apiKey, maxResults: 5 });

  test("sends the key and count, and strips Brave's markup", async () => {
    const api = fakeBrave();
    const ddg = fakeDuckDuckGo();
    const { ctx, warnings } = setup({ [BRAVE_ADDRESS]: api.origin, [DDG_ADDRESS]: ddg.origin }, brave("BSA-key-1"));
    const result = await webSearchTool.execute({ query: "bun" }, ctx);

    expect(result.content).toBe(
      [
        `Results for "bun" from Brave:`,
        "",
        "1. Bun — A fast all-in-one JavaScript runtime",
        "   https://bun.sh/",
        "   Bun is a fast JavaScript all-in-one toolkit & runtime.",
        "",
        "2. Bun Docs",
        "   https://bun.sh/docs",
        "   Read the Bun documentation.",
      ].join("\n"),
    );
    expect(api.seen[0]!.headers.get("x-subscription-token")).toBe("BSA-key-1");
    expect(api.seen[0]!.headers.get("host")).toBe("api.search.brave.com");
    expect(api.seen[0]!.url.searchParams.get("count")).toBe("5");
    expect(ddg.seen).toHaveLength(0);
    expect(warnings).toHaveLength(0);
  });

  test("empty results do not degrade", async () => {
    const api = fakeBrave((r) => json({ type: "search", query: { original: query(r) } }));
    const ddg = fakeDuckDuckGo();
    const { ctx, warnings } = setup({ [BRAVE_ADDRESS]: api.origin, [DDG_ADDRESS]: ddg.origin }, brave("k"));
    const result = await webSearchTool.execute({ query: "nothing" }, ctx);
    expect(result.content).toStartWith(`No results for "nothing" from Brave.`);
    expect(ddg.seen).toHaveLength(0);
    expect(warnings).toHaveLength(0);
  });

  const hardErrors: [string, () => Response, RegExp][] = [
    [
      "401",
      () => json(braveError(401, "SUBSCRIPTION_TOKEN_INVALID", "The token is invalid."), 401),
      /HTTP 401 \(the API key was refused\): The token is invalid\./,
    ],
    [
      "402",
      () => json(braveError(402, "OPTION_NOT_IN_PLAN", "Quota exceeded."), 402),
      /HTTP 402 \(the plan's quota is used up\)/,
    ],
    ["403", () => json(braveError(403, "FORBIDDEN", "Forbidden."), 403), /HTTP 403/],
    [
      "429",
      () => json(braveError(429, "RATE_LIMITED", "Request rate limit exceeded."), 429),
      /HTTP 429 \(rate limited\)/,
    ],
    ["500", () => new Response("upstream exploded", { status: 500 }), /HTTP 500 \(server error\)/],
    ["503", () => new Response("", { status: 503 }), /HTTP 503 \(server error\)/],
    ["not JSON", () => html("<html>gateway</html>"), /not JSON/],
  ];

  test.each(hardErrors)("a %s degrades once to DuckDuckGo, loudly", async (_, answer, reason) => {
    const api = fakeBrave(answer);
    const ddg = fakeDuckDuckGo();
    const { ctx, warnings } = setup({ [BRAVE_ADDRESS]: api.origin, [DDG_ADDRESS]: ddg.origin }, brave("k"));
    const result = await webSearchTool.execute({ query: "bun" }, ctx);

    expect(result.isError).toBeUndefined();
    expect(result.content).toStartWith(`Results for "bun" from DuckDuckGo:`);
    expect(result.content).toContain("1. Bun — A fast all-in-one JavaScript runtime");
    expect(result.content).toMatch(/\[degraded: true, primary_backend: brave, fallback_reason: [^\]]+\]/);
    expect(result.content).toMatch(reason);
    expect(result.content).toContain("came from the DuckDuckGo fallback");
    expect(api.seen).toHaveLength(1);
    expect(ddg.seen).toHaveLength(1);
    expect(warnings).toHaveLength(1);
    expect(String(warnings[0]![0])).toMatch(/brave backend failed/);
    expect(String(warnings[0]![0])).toMatch(reason);
  });

  test("a transport failure and a missing key degrade too", async () => {
    const ddg = fakeDuckDuckGo();
    const down = setup({ [DDG_ADDRESS]: ddg.origin }, brave("k"), [BRAVE_ADDRESS]);
    const unreachable = await webSearchTool.execute({ query: "bun" }, down.ctx);
    expect(unreachable.content).toMatch(/fallback_reason: could not connect to api\.search\.brave\.com/);
    expect(down.warnings).toHaveLength(1);

    const keyless = setup({ [DDG_ADDRESS]: ddg.origin }, brave(undefined));
    const noKey = await webSearchTool.execute({ query: "bun" }, keyless.ctx);
    expect(noKey.content).toContain("fallback_reason: no API key is configured");
    expect(keyless.door.calls.map((call) => new URL(call.url).hostname)).toEqual([DDG_ADDRESS]);
  });

  test("when the fallback fails too, the error names both and nothing is retried", async () => {
    const api = fakeBrave(() => json(braveError(429, "RATE_LIMITED", "Slow down."), 429));
    const ddg = fakeDuckDuckGo(() => html(CHALLENGE_PAGE, 202));
    const { ctx, warnings } = setup({ [BRAVE_ADDRESS]: api.origin, [DDG_ADDRESS]: ddg.origin }, brave("k"));
    const result = await webSearchTool.execute({ query: "bun" }, ctx);
    expect(result.isError).toBe(true);
    expect(result.content).toMatch(/the brave backend failed \(HTTP 429 .*\) and the DuckDuckGo fallback failed too/);
    expect(api.seen).toHaveLength(1);
    expect(ddg.seen).toHaveLength(1);
    expect(warnings).toHaveLength(1);
  });
});

describe("DuckDuckGo parsing", () => {
  test("unwrapLink", () => {
    expect(unwrapLink("//duckduckgo.com/l/?uddg=https%3A%2F%2Fexample.com%2Fa%3Fb%3D1&rut=x")).toBe(
      "https://example.com/a?b=1",
    );
    expect(unwrapLink("https://example.com/direct")).toBe("https://example.com/direct");
    expect(unwrapLink("https://duckduckgo.com/y.js?ad_domain=x")).toBeUndefined();
    expect(unwrapLink("//duckduckgo.com/l/?uddg=javascript%3Aalert(1)")).toBeUndefined();
    expect(unwrapLink("")).toBeUndefined();
  });

  test("duplicates are listed once and script text is never a result", async () => {
    const hits: Hit[] = [DDG_HITS[0]!, DDG_HITS[0]!, DDG_HITS[1]!];
    const results = await parseDuckDuckGoHtml(duckduckgoPage("bun", hits));
    expect(results.map((r) => r.url)).toEqual(["https://bun.sh/", "https://en.wikipedia.org/wiki/Bun_(software)"]);
  });
});

test("arguments are validated at the edge", () => {
  expect(v.safeParse(webSearchTool.parameters, { query: "  " }).success).toBe(false);
  expect(v.safeParse(webSearchTool.parameters, { query: "x", max_results: 21 }).success).toBe(false);
  expect(v.parse(webSearchTool.parameters, { query: " bun " })).toEqual({ query: "bun" });
});

test("settings come from [fermix_core.tools.web_search] plus the resolved key", () => {
  const config = {
    fermix_core: { tools: { web_search: { backend: "brave" as const, api_key: "@keyring", max_results: 3 } } },
  };
  expect(webSearchSettings(config, "resolved")).toEqual({ backend: "brave", apiKey: "resolved", maxResults: 3 });
  expect(webSearchSettings({})).toEqual({ backend: undefined, apiKey: undefined, maxResults: undefined });
});
