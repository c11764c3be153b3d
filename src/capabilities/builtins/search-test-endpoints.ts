import type { Env } from "../../config/env.ts";
import { DEFAULT_LIMITS } from "../../net/guarded-fetch.ts";
import { readCapped } from "../../net/read-capped.ts";
import { testLoopbackOrigin } from "../../net/test-origin.ts";
import type { GuardedFetch } from "../../net/types.ts";
import { KEYED_SEARCH_BACKENDS } from "./search-backends.ts";
import { DUCKDUCKGO_URL } from "./search-urls.ts";
import type { SearchEndpoints } from "./web-search.ts";

/**
 * A test's fake search APIs for the compiled binary: `FERMIX_TEST_SEARCH_<BACKEND>=http://127.0.0.1:PORT`
 * (DUCKDUCKGO, BRAVE, EXA, TAVILY, FIRECRAWL) puts that backend's endpoint path on the fake. Only a loopback
 * http origin is taken — so a variable slipped into a shell profile cannot send a search key anywhere else —
 * and only those origins skip the guarded door (which refuses loopback by design); every other request of
 * web_search still goes through it. Production sets none of these and gets the real hosts.
 */
export function testSearchEndpoints(env: Env): { endpoints: SearchEndpoints; origins: Set<string> } {
  const endpoints: Record<string, string> = {};
  const origins = new Set<string>();
  const defaults: Record<string, string> = {
    duckduckgo: DUCKDUCKGO_URL,
    ...Object.fromEntries(Object.entries(KEYED_SEARCH_BACKENDS).map(([name, b]) => [name, b.url])),
  };
  for (const [name, url] of Object.entries(defaults)) {
    const origin = testLoopbackOrigin(env[`FERMIX_TEST_SEARCH_${name.toUpperCase()}`]);
    if (!origin) continue;
    endpoints[name] = `${origin}${new URL(url).pathname}`;
    origins.add(origin);
  }
  return { endpoints: endpoints as SearchEndpoints, origins };
}

/** Sends requests for the test origins with the platform's fetch, everything else through `door`. */
export function withTestOrigins(door: GuardedFetch, origins: Set<string>, send: typeof fetch = fetch): GuardedFetch {
  if (origins.size === 0) return door;
  return async (url, request = {}) => {
    if (!origins.has(new URL(url).origin)) return door(url, request);
    const response = await send(url, {
      method: request.method,
      headers: request.headers,
      body: request.body,
      signal: request.signal,
      redirect: "manual",
    });
    // Capped as the door caps (net/read-capped.ts): a fake that sends forever costs maxBytes, not the machine.
    const { body, truncated } = await readCapped(response, request.maxBytes ?? DEFAULT_LIMITS.maxBytes);
    return { status: response.status, headers: response.headers, url, body, truncated };
  };
}
