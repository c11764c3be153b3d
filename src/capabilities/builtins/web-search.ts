import * as v from "valibot";
import type { Config } from "../../config/schema.ts";
import type { GuardedFetch } from "../../net/types.ts";
import { lazySchema } from "../../valibot-lazy.ts";
import { SearchFailed, type SearchRequest, type SearchResult } from "./search-backend.ts";
import { isKeyedBackend, KEYED_SEARCH_BACKENDS, type KeyedBackendName } from "./search-backends.ts";
import { DUCKDUCKGO_URL } from "./search-urls.ts";

const DEFAULT_RESULTS = 8;

/** `[fermix_core.tools.web_search]` with the API key already resolved from its secret reference. */
export type WebSearchSettings = {
  backend?: "duckduckgo" | KeyedBackendName;
  apiKey?: string;
  maxResults?: number;
};

/** Builds the settings from config.toml; the caller resolves `api_key` (a secret reference) and passes it in. */
export function webSearchSettings(config: Config, apiKey?: string): WebSearchSettings {
  const section = config.fermix_core?.tools?.web_search;
  return { backend: section?.backend, apiKey, maxResults: section?.max_results };
}

export type WebSearchContext = {
  net: GuardedFetch;
  signal: AbortSignal;
  log: { warn(...args: unknown[]): void };
  config?: WebSearchSettings;
};

/** Where each backend lives; tests point these at fakes on loopback, everyone else keeps the real hosts. */
export type SearchEndpoints = { duckduckgo?: string } & { [K in KeyedBackendName]?: string };

export const WebSearchArgs = lazySchema(() =>
  v.object({
    query: v.pipe(v.string(), v.trim(), v.minLength(1), v.maxLength(400), v.description("What to search the web for.")),
    max_results: v.optional(
      v.pipe(v.number(), v.integer(), v.minValue(1), v.maxValue(20), v.description("How many results (1-20).")),
    ),
  }),
);
export type WebSearchArgs = v.InferOutput<typeof WebSearchArgs>;

type Degraded = { primary: string; reason: string };

export function createWebSearchTool(endpoints: SearchEndpoints = {}) {
  const duckduckgo = endpoints.duckduckgo ?? DUCKDUCKGO_URL;

  return {
    name: "web_search",
    description:
      "Search the web: a numbered list of results (title, URL, snippet) to pick from and read with web_fetch.",
    policy: "network" as const,
    readOnly: true,
    parameters: WebSearchArgs,
    help: 'Uses DuckDuckGo unless [fermix_core.tools.web_search] sets backend = "brave", "exa", "tavily" or "firecrawl" with an api_key. When that backend fails (bad key, credits, rate limit, outage) the search is retried once on DuckDuckGo and the result says so; no results is an answer, not a failure. Snippets are short; fetch a result to read it.',
    async execute(args: WebSearchArgs, ctx: WebSearchContext): Promise<{ content: string; isError?: boolean }> {
      const settings = ctx.config ?? {};
      const request: SearchRequest = {
        net: ctx.net,
        query: args.query,
        count: args.max_results ?? settings.maxResults ?? DEFAULT_RESULTS,
        signal: ctx.signal,
      };
      let degraded: Degraded | undefined;
      try {
        if (isKeyedBackend(settings.backend)) {
          const name = settings.backend;
          const backend = KEYED_SEARCH_BACKENDS[name];
          try {
            const results = await backend.search(request, settings.apiKey, endpoints[name] ?? backend.url);
            return { content: format(args.query, backend.label, results) };
          } catch (err) {
            // Only a failure degrades; an empty answer is an answer. And only once: the fallback has no fallback.
            if (!SearchFailed.is(err)) throw err;
            degraded = { primary: name, reason: err.data.reason };
            ctx.log.warn(`web_search: the ${name} backend failed (${err.data.reason}); falling back to duckduckgo`, {
              backend: name,
              reason: err.data.reason,
            });
          }
        }
        // DuckDuckGo's parser loads on the first search, not with the declaration (issue 31: boot RSS, ask's import).
        const { searchDuckDuckGo } = await import("./duckduckgo.ts");
        return { content: format(args.query, "DuckDuckGo", await searchDuckDuckGo(request, duckduckgo), degraded) };
      } catch (err) {
        if (ctx.signal.aborted) return { isError: true, content: "web_search was cancelled." };
        return { isError: true, content: explain(err, degraded) };
      }
    },
  };
}

export const webSearchTool = createWebSearchTool();

function format(query: string, backend: string, results: SearchResult[], degraded?: Degraded): string {
  const lines =
    results.length === 0
      ? [`No results for "${query}" from ${backend}. Try fewer or different words.`]
      : [
          `Results for "${query}" from ${backend}:`,
          ...results.map(
            (result, i) =>
              `\n${i + 1}. ${result.title || result.url}\n   ${result.url}${result.snippet ? `\n   ${result.snippet}` : ""}`,
          ),
        ];
  if (degraded !== undefined) {
    lines.push(
      `\n[degraded: true, primary_backend: ${degraded.primary}, fallback_reason: ${degraded.reason}]`,
      `These results came from the DuckDuckGo fallback because the configured ${degraded.primary} backend failed.`,
    );
  }
  return lines.join("\n");
}

function explain(err: unknown, degraded: Degraded | undefined): string {
  const reason = SearchFailed.is(err) ? err.data.reason : err instanceof Error ? err.message : String(err);
  const first = degraded
    ? `web_search failed: the ${degraded.primary} backend failed (${degraded.reason}) and the DuckDuckGo fallback failed too (${reason}).`
    : `web_search failed: DuckDuckGo ${reason.startsWith("HTTP") ? "answered " : ""}${reason}.`;
  return `${first} Try again in a little while, or use web_fetch on a page you already know.`;
}
