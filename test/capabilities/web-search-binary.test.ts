import { describe, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { startFakeOpenAIResponses } from "../fake/llm.ts";
import {
  exaError,
  type FakeSearchApi,
  fakeExa,
  fakeFirecrawl,
  fakeTavily,
  firecrawlError,
  tavilyError,
} from "../fake/search-apis.ts";
import { cleanupAfterEach } from "../fixture/cleanup.ts";
import { runFermix } from "../fixture/cli.ts";
import { tempHome } from "../fixture/home.ts";
import { echoToolOutputs } from "../fixture/tool-outputs.ts";
import { DDG_HITS, duckduckgoPage } from "./builtins/search-fixtures.ts";

/*
 * web_search in the compiled binary, each keyed backend against a fake of its API (FERMIX_TEST_SEARCH_<BACKEND>
 * puts the backend's endpoint on a loopback fake, DuckDuckGo's too): `fermix ask` runs the model's web_search
 * call, the key comes from the backend's own environment variable, results come back; a refused key (401)
 * degrades once to DuckDuckGo with the degraded marker and a warning in the log; empty results do not degrade.
 */

const defer = cleanupAfterEach();
const OPENAI_KEY = "sk-test-websearch-0123456789abcdef";

const VENDORS = [
  { name: "exa", label: "Exa", env: "EXA_API_KEY", key: "exa-bin-key-0123456789", make: fakeExa, err: exaError },
  {
    name: "tavily",
    label: "Tavily",
    env: "TAVILY_API_KEY",
    key: "tvly-bin-0123456789",
    make: fakeTavily,
    err: tavilyError,
  },
  {
    name: "firecrawl",
    label: "Firecrawl",
    env: "FIRECRAWL_API_KEY",
    key: "fc-bin-0123456789",
    make: fakeFirecrawl,
    err: firecrawlError,
  },
] as const;

function serve(handle: (r: Request) => Response | Promise<Response>) {
  const server = Bun.serve({ hostname: "127.0.0.1", port: 0, fetch: handle });
  defer(() => server.stop(true));
  return server.url.origin;
}

async function run(vendor: (typeof VENDORS)[number], api: FakeSearchApi, key: string) {
  const h = tempHome();
  defer(() => h[Symbol.asyncDispose]());
  const llm = await startFakeOpenAIResponses({ apiKey: OPENAI_KEY });
  defer(() => llm.close());
  let ddgCalls = 0;
  const ddg = serve((r) => {
    ddgCalls++;
    const q = new URL(r.url).searchParams.get("q") ?? "";
    return new Response(duckduckgoPage(q, DDG_HITS), { headers: { "content-type": "text/html; charset=UTF-8" } });
  });
  const vendorOrigin = serve((r) => api.handle(r));
  h.writeConfig(`[fermix_core.tools.web_search]\nbackend = "${vendor.name}"\nmax_results = 3\n`);
  llm.enqueue({ kind: "tool_calls", calls: [{ name: "web_search", arguments: { query: "bun runtime" } }] });
  echoToolOutputs(llm);
  const out = await runFermix(["ask", "search the web for bun"], {
    env: {
      FERMIX_HOME: h.home,
      HOME: h.userHome,
      OPENAI_API_KEY: OPENAI_KEY,
      OPENAI_BASE_URL: llm.baseUrl,
      [vendor.env]: key,
      [`FERMIX_TEST_SEARCH_${vendor.name.toUpperCase()}`]: vendorOrigin,
      FERMIX_TEST_SEARCH_DUCKDUCKGO: ddg,
    },
  });
  const log = readFileSync(join(h.home, "logs", "fermix.log"), "utf8");
  return { out, log, ddgCalls: () => ddgCalls };
}

for (const vendor of VENDORS) {
  describe(`web_search on ${vendor.label} in the binary`, () => {
    test("results with the key from its own variable; empty results do not degrade", async () => {
      const hits = [{ title: "Bun", url: "https://bun.sh/", snippet: "A fast JavaScript runtime." }];
      const api = vendor.make({ apiKey: vendor.key, hits });
      const r = await run(vendor, api, vendor.key);
      expect(r.out.code).toBe(0);
      expect(r.out.stdout).toContain(`Results for "bun runtime" from ${vendor.label}:`);
      expect(r.out.stdout).toContain("1. Bun\n   https://bun.sh/\n   A fast JavaScript runtime.");
      expect(api.seen).toHaveLength(1);
      expect(r.ddgCalls()).toBe(0);
      expect(r.out.stdout + r.out.stderr + r.log).not.toContain(vendor.key);

      const empty = vendor.make({ apiKey: vendor.key, hits: [] });
      const e = await run(vendor, empty, vendor.key);
      expect(e.out.stdout).toContain(`No results for "bun runtime" from ${vendor.label}.`);
      expect(e.out.stdout).not.toContain("degraded");
      expect(e.ddgCalls()).toBe(0);
      expect(e.log).not.toContain("falling back to duckduckgo");
    }, 60_000);

    test("a refused key degrades once to DuckDuckGo, loudly", async () => {
      const api = vendor.make({ apiKey: "the-right-key-is-another" });
      const r = await run(vendor, api, vendor.key);
      expect(r.out.code).toBe(0);
      expect(r.out.stdout).toContain(`Results for "bun runtime" from DuckDuckGo:`);
      expect(r.out.stdout).toMatch(
        new RegExp(
          `\\[degraded: true, primary_backend: ${vendor.name}, fallback_reason: HTTP 401 \\(the API key was refused\\)`,
        ),
      );
      expect(api.seen).toHaveLength(1);
      expect(r.ddgCalls()).toBe(1);
      const warnings = r.log.split("\n").filter((l) => l.includes(`the ${vendor.name} backend failed`));
      expect(warnings).toHaveLength(1);
      expect(warnings[0]).toContain("falling back to duckduckgo");
      expect(r.out.stdout + r.out.stderr + r.log).not.toContain(vendor.key);
    }, 60_000);
  });
}
