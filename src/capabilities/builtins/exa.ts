import * as v from "valibot";
import { malformed, postKeyedSearch } from "./_search-http.ts";
import { clipSnippet, type SearchRequest, type SearchResult } from "./search-backend.ts";
import { EXA_URL } from "./search-urls.ts";

// Only the fields we show. Exa sends a null title for pages without one; highlights are its ranked snippets.
const ExaAnswer = v.object({
  results: v.optional(
    v.array(
      v.object({
        url: v.string(),
        title: v.nullish(v.string()),
        highlights: v.nullish(v.array(v.string())),
        text: v.nullish(v.string()),
        summary: v.nullish(v.string()),
      }),
    ),
    [],
  ),
});

// `{"requestId": "…", "error": "Invalid API key", "tag": "INVALID_API_KEY"}`
const ExaError = v.object({ error: v.optional(v.string()), tag: v.optional(v.string()) });

export async function searchExa(
  request: SearchRequest,
  apiKey: string | undefined,
  endpoint = EXA_URL,
): Promise<SearchResult[]> {
  const json = await postKeyedSearch(request, {
    backend: "exa",
    label: "Exa",
    endpoint,
    apiKey,
    auth: (key) => ({ "x-api-key": key }),
    // "auto" lets Exa choose its own ranking; highlights are the short passages that make a snippet.
    body: {
      query: request.query,
      numResults: Math.min(request.count, 20),
      type: "auto",
      contents: { highlights: true },
    },
    errorDetail: (body) => {
      const parsed = v.safeParse(ExaError, body);
      return parsed.success ? (parsed.output.error ?? parsed.output.tag) : undefined;
    },
  });
  const answer = v.safeParse(ExaAnswer, json);
  if (!answer.success) return malformed("exa", "Exa");
  return answer.output.results.slice(0, request.count).map((r) => ({
    title: (r.title ?? "").trim(),
    url: r.url,
    snippet: clipSnippet(oneLine(r.highlights?.join(" … ") || r.summary || r.text || "")),
  }));
}

function oneLine(text: string): string {
  return text.replace(/\s+/g, " ").trim();
}
