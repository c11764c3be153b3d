import * as v from "valibot";
import { malformed, postKeyedSearch } from "./_search-http.ts";
import { clipSnippet, type SearchRequest, type SearchResult } from "./search-backend.ts";
import { FIRECRAWL_URL } from "./search-urls.ts";

const Hit = v.object({ url: v.string(), title: v.nullish(v.string()), description: v.nullish(v.string()) });

// v2 groups results by source (`data.web`); v1 answered a flat `data` list, which a proxy may still serve.
const FirecrawlAnswer = v.object({
  success: v.optional(v.boolean()),
  data: v.optional(v.union([v.object({ web: v.optional(v.array(Hit), []) }), v.array(Hit)])),
});

// `{"success": false, "error": "Unauthorized: Invalid token"}`
const FirecrawlError = v.object({ error: v.optional(v.string()) });

export async function searchFirecrawl(
  request: SearchRequest,
  apiKey: string | undefined,
  endpoint = FIRECRAWL_URL,
): Promise<SearchResult[]> {
  const json = await postKeyedSearch(request, {
    backend: "firecrawl",
    label: "Firecrawl",
    endpoint,
    apiKey,
    auth: (key) => ({ authorization: `Bearer ${key}` }),
    body: { query: request.query, limit: Math.min(request.count, 20), sources: ["web"] },
    errorDetail: (body) => {
      const parsed = v.safeParse(FirecrawlError, body);
      return parsed.success ? parsed.output.error : undefined;
    },
  });
  const answer = v.safeParse(FirecrawlAnswer, json);
  if (!answer.success || answer.output.success === false) return malformed("firecrawl", "Firecrawl");
  const data = answer.output.data;
  const hits = data === undefined ? [] : Array.isArray(data) ? data : data.web;
  return hits.slice(0, request.count).map((r) => ({
    title: (r.title ?? "").trim(),
    url: r.url,
    snippet: clipSnippet((r.description ?? "").replace(/\s+/g, " ").trim()),
  }));
}
