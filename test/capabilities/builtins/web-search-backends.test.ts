import { describe, expect, test } from "bun:test";
import { SEARCH_ANSWER_MAX_BYTES } from "../../../src/capabilities/builtins/_search-http.ts";
import { createWebSearchTool, type WebSearchSettings } from "../../../src/capabilities/builtins/web-search.ts";
import { createWebSearch } from "../../../src/capabilities/builtins/web-tools.ts";
import type { ToolContext } from "../../../src/capabilities/tool.ts";
import {
  exaError,
  type FakeSearchApi,
  fakeExa,
  fakeFirecrawl,
  fakeTavily,
  firecrawlError,
  type SearchHit,
  tavilyError,
} from "../../fake/search-apis.ts";
import { createLoopbackDoor, useFakeServers } from "../../net/loopback-door.ts";
import { DDG_HITS, duckduckgoPage } from "./search-fixtures.ts";

/*
 * web_search on Exa, Tavily and Firecrawl, each against a fake of its API through the real guarded door (names
 * resolve to public test addresses, only the last socket lands on loopback): the key goes where the vendor wants
 * it, results are listed, no results is an answer, and a hard error (refused key, credits, transport, no key)
 * degrades once to DuckDuckGo with a warning and the degraded marker.
 */

const DDG = "1.1.1.1";
const VENDOR = "1.0.0.1";
const serve = useFakeServers();

const HITS: SearchHit[] = [
  { title: "Bun — A fast all-in-one JavaScript runtime", url: "https://bun.sh/", snippet: "Bun is a fast toolkit." },
  { title: "Bun Docs", url: "https://bun.sh/docs", snippet: "Read the   Bun\n documentation." },
];

type Vendor = {
  name: "exa" | "tavily" | "firecrawl";
  label: string;
  host: string;
  key: string;
  make: (opts: Parameters<typeof fakeExa>[0]) => FakeSearchApi;
  /** Where the fake saw the key. */
  sentKey: (h: Headers) => string | null;
  count: (body: Record<string, unknown>) => unknown;
  /** The vendor's credits-gone answer and what the fallback reason says of it. */
  credits: [() => Response, RegExp];
};

const VENDORS: Vendor[] = [
  {
    name: "exa",
    label: "Exa",
    host: "api.exa.ai",
    key: "exa-key-0123456789abcdef",
    make: fakeExa,
    sentKey: (h) => h.get("x-api-key"),
    count: (b) => b.numResults,
    credits: [
      () => exaError(402, "You have run out of credits"),
      /HTTP 402 \(the plan's credits are used up\): You have run out of credits/,
    ],
  },
  {
    name: "tavily",
    label: "Tavily",
    host: "api.tavily.com",
    key: "tvly-dev-0123456789abcdef",
    make: fakeTavily,
    sentKey: (h) => h.get("authorization"),
    count: (b) => b.max_results,
    credits: [
      () => tavilyError(432, "This request exceeds your plan's set usage limit. Please upgrade your plan."),
      /HTTP 432 \(the plan's usage limit is reached\): This request exceeds your plan/,
    ],
  },
  {
    name: "firecrawl",
    label: "Firecrawl",
    host: "api.firecrawl.dev",
    key: "fc-0123456789abcdef",
    make: fakeFirecrawl,
    sentKey: (h) => h.get("authorization"),
    count: (b) => b.limit,
    credits: [
      () => firecrawlError(402, "Payment Required: Insufficient credits to perform this request."),
      /HTTP 402 \(the plan's credits are used up\): Payment Required: Insufficient credits/,
    ],
  },
];

function fakeDuckDuckGo() {
  const seen: URL[] = [];
  const fake = serve((request) => {
    const url = new URL(request.url);
    seen.push(url);
    return new Response(duckduckgoPage(url.searchParams.get("q") ?? "", DDG_HITS), {
      headers: { "content-type": "text/html; charset=UTF-8" },
    });
  });
  return { ...fake, seen };
}

function setup(vendor: Vendor, api: FakeSearchApi | undefined, apiKey: string | undefined, refuse?: string[]) {
  const ddg = fakeDuckDuckGo();
  const routes: Record<string, string> = { [DDG]: ddg.origin };
  if (api) routes[VENDOR] = serve((r) => api.handle(r)).origin;
  const door = createLoopbackDoor({ names: { "html.duckduckgo.com": [DDG], [vendor.host]: [VENDOR] }, routes, refuse });
  const warnings: unknown[][] = [];
  const config: WebSearchSettings = { backend: vendor.name, apiKey, maxResults: 5 };
  const ctx = {
    net: door.net,
    signal: new AbortController().signal,
    log: { warn: (...a: unknown[]) => warnings.push(a) },
    config,
  };
  return { ctx, ddg, door, warnings, tool: createWebSearchTool() };
}

for (const vendor of VENDORS) {
  describe(`web_search on ${vendor.label}`, () => {
    test("sends the key where the vendor reads it, with the count, and lists the results", async () => {
      const api = vendor.make({ apiKey: vendor.key, hits: HITS });
      const s = setup(vendor, api, vendor.key);
      const result = await s.tool.execute({ query: "bun" }, s.ctx);
      expect(result.isError).toBeUndefined();
      expect(result.content).toBe(
        [
          `Results for "bun" from ${vendor.label}:`,
          "",
          "1. Bun — A fast all-in-one JavaScript runtime",
          "   https://bun.sh/",
          "   Bun is a fast toolkit.",
          "",
          "2. Bun Docs",
          "   https://bun.sh/docs",
          "   Read the Bun documentation.",
        ].join("\n"),
      );
      const seen = api.seen[0]!;
      expect(seen.headers.get("host")).toBe(vendor.host);
      expect(seen.headers.get("content-type")).toBe("application/json");
      expect(vendor.sentKey(seen.headers)).toBe(vendor.name === "exa" ? vendor.key : `Bearer ${vendor.key}`);
      expect(seen.body.query).toBe("bun");
      expect(vendor.count(seen.body)).toBe(5);
      expect(s.ddg.seen).toHaveLength(0);
      expect(s.warnings).toHaveLength(0);
    });

    test("no results is an answer: no degrade, no warning", async () => {
      const api = vendor.make({ apiKey: vendor.key, hits: [] });
      const s = setup(vendor, api, vendor.key);
      const result = await s.tool.execute({ query: "qwxzv plonk" }, s.ctx);
      expect(result.isError).toBeUndefined();
      expect(result.content).toStartWith(`No results for "qwxzv plonk" from ${vendor.label}.`);
      expect(result.content).not.toContain("degraded");
      expect(api.seen).toHaveLength(1);
      expect(s.ddg.seen).toHaveLength(0);
      expect(s.warnings).toHaveLength(0);
    });

    const degrades: [string, (v: Vendor) => FakeSearchApi | undefined, string | undefined, RegExp, string[]][] = [
      [
        "a refused key (401)",
        (v) => v.make({ apiKey: "another-key" }),
        vendor.key,
        /HTTP 401 \(the API key was refused\)/,
        [],
      ],
      ["credits used up", (v) => v.make({ apiKey: v.key, answer: v.credits[0] }), vendor.key, vendor.credits[1], []],
      [
        "an outage (503)",
        (v) => v.make({ apiKey: v.key, answer: () => new Response("upstream connect error", { status: 503 }) }),
        vendor.key,
        /HTTP 503 \(server error\)/,
        [],
      ],
      [
        "a transport failure",
        () => undefined,
        vendor.key,
        new RegExp(`could not connect to ${vendor.host.replaceAll(".", "\\.")}`),
        [VENDOR],
      ],
      ["no key at all", () => undefined, undefined, /no API key is configured/, []],
      [
        "an answer over the size cap (refused, not parsed)",
        (v) => v.make({ apiKey: v.key, answer: () => Response.json({ pad: "x".repeat(SEARCH_ANSWER_MAX_BYTES) }) }),
        vendor.key,
        new RegExp(`the answer was larger than ${SEARCH_ANSWER_MAX_BYTES} bytes`),
        [],
      ],
    ];

    test.each(degrades)("%s degrades once to DuckDuckGo, loudly", async (_, make, key, reason, refuse) => {
      const api = make(vendor);
      const s = setup(vendor, api, key, refuse);
      const result = await s.tool.execute({ query: "bun" }, s.ctx);
      expect(result.content).toStartWith(`Results for "bun" from DuckDuckGo:`);
      expect(result.isError).toBeUndefined();
      expect(result.content).toMatch(
        new RegExp(`\\[degraded: true, primary_backend: ${vendor.name}, fallback_reason: [^\\]]+\\]`),
      );
      expect(result.content).toMatch(reason);
      expect(result.content).toContain("came from the DuckDuckGo fallback");
      expect(api?.seen.length ?? 0).toBe(api ? 1 : 0);
      expect(s.ddg.seen).toHaveLength(1);
      expect(s.warnings).toHaveLength(1);
      expect(String(s.warnings[0]![0])).toContain(`the ${vendor.name} backend failed`);
      expect(s.warnings[0]![1]).toMatchObject({ backend: vendor.name });
      // The key is never in what the model or the log sees.
      expect(result.content + JSON.stringify(s.warnings)).not.toContain(vendor.key);
      if (key === undefined) expect(s.door.calls.map((c) => new URL(c.url).hostname)).toEqual([DDG]);
    });
  });
}

describe("the key each backend resolves", () => {
  test("api_key, else the backend's own variable, each in the backend's slot", async () => {
    const asked: [unknown, string][] = [];
    const tool = createWebSearch({});
    for (const backend of ["brave", "exa", "tavily", "firecrawl"] as const) {
      for (const api_key of [undefined, "@keyring"]) {
        const ctx = {
          config: { fermix_core: { tools: { web_search: { backend, ...(api_key ? { api_key } : {}) } } } },
          resolveSecret: (ref: unknown, slot: string) => {
            asked.push([ref, slot]);
            throw new Error("not set");
          },
          // No key: the search degrades before any request; DuckDuckGo's door refuses, which is fine here.
          net: () => Promise.reject(new Error("offline")),
          signal: new AbortController().signal,
          log: { warn() {} },
        } as unknown as ToolContext;
        await tool.execute({ query: "x" }, ctx);
      }
    }
    expect(asked).toEqual([
      ["$BRAVE_API_KEY", "BRAVE_API_KEY"],
      ["@keyring", "BRAVE_API_KEY"],
      ["$EXA_API_KEY", "EXA_API_KEY"],
      ["@keyring", "EXA_API_KEY"],
      ["$TAVILY_API_KEY", "TAVILY_API_KEY"],
      ["@keyring", "TAVILY_API_KEY"],
      ["$FIRECRAWL_API_KEY", "FIRECRAWL_API_KEY"],
      ["@keyring", "FIRECRAWL_API_KEY"],
    ]);
  });
});
