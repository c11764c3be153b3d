import * as v from "valibot";
import { malformed, postKeyedSearch } from "./_search-http.ts";
import { clipSnippet, type SearchRequest, type SearchResult } from "./search-backend.ts";
import { TAVILY_URL } from "./search-urls.ts";

const TavilyAnswer = v.object({
  results: v.optional(
    v.array(v.object({ url: v.string(), title: v.nullish(v.string()), content: v.nullish(v.string()) })),
    [],
  ),
});

// `{"detail": {"error": "Unauthorized: missing or invalid API key."}}`; validation errors carry a list instead.
const TavilyError = v.object({
  detail: v.union([v.object({ error: v.optional(v.string()) }), v.string(), v.array(v.unknown())]),
});

export async function searchTavily(
  request: SearchRequest,
  apiKey: string | undefined,
  endpoint = TAVILY_URL,
): Promise<SearchResult[]> {
  const json = await postKeyedSearch(request, {
    backend: "tavily",
    label: "Tavily",
    endpoint,
    apiKey,
    auth: (key) => ({ authorization: `Bearer ${key}` }),
    body: { query: request.query, max_results: Math.min(request.count, 20), search_depth: "basic", topic: "general" },
    errorDetail: (body) => {
      const parsed = v.safeParse(TavilyError, body);
      if (!parsed.success) return undefined;
      const detail = parsed.output.detail;
      return typeof detail === "string" ? detail : Array.isArray(detail) ? undefined : detail.error;
    },
    // Tavily's own statuses for a plan's or a pay-as-you-go budget's limit: credits, like a 402.
    hints: { 432: "the plan's usage limit is reached", 433: "the pay-as-you-go limit is reached" },
  });
  const answer = v.safeParse(TavilyAnswer, json);
  if (!answer.success) return malformed("tavily", "Tavily");
  return answer.output.results.slice(0, request.count).map((r) => ({
    title: (r.title ?? "").trim(),
    url: r.url,
    snippet: clipSnippet((r.content ?? "").replace(/\s+/g, " ").trim()),
  }));
}
