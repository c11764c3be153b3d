import * as v from "valibot";
import { inlineText, parseMarkup } from "./_html-text.ts";
import { SEARCH_ANSWER_MAX_BYTES } from "./_search-http.ts";
import {
  clipSnippet,
  SEARCH_USER_AGENT,
  SearchFailed,
  type SearchRequest,
  type SearchResult,
} from "./search-backend.ts";
import { BRAVE_URL } from "./search-urls.ts";

// Only the fields we show; anything else Brave sends is ignored, and a missing `web` means no results.
const BraveAnswer = v.object({
  web: v.optional(
    v.object({
      results: v.optional(
        v.array(
          v.object({
            title: v.optional(v.string(), ""),
            url: v.string(),
            description: v.optional(v.string(), ""),
          }),
        ),
        [],
      ),
    }),
  ),
});

const BraveError = v.object({ error: v.object({ code: v.optional(v.string()), detail: v.optional(v.string()) }) });

const STATUS_HINTS: Record<number, string> = {
  401: "the API key was refused",
  402: "the plan's quota is used up",
  403: "the API key may not use this endpoint",
  422: "the request was refused",
  429: "rate limited",
};

export async function searchBrave(
  request: SearchRequest,
  apiKey: string | undefined,
  endpoint = BRAVE_URL,
): Promise<SearchResult[]> {
  if (apiKey === undefined || apiKey === "") fail("no API key is configured");
  const url = new URL(endpoint);
  url.searchParams.set("q", request.query);
  url.searchParams.set("count", String(Math.min(request.count, 20)));
  let response: Awaited<ReturnType<SearchRequest["net"]>>;
  try {
    response = await request.net(url.href, {
      headers: { accept: "application/json", "x-subscription-token": apiKey, "user-agent": SEARCH_USER_AGENT },
      maxBytes: SEARCH_ANSWER_MAX_BYTES,
      signal: request.signal,
    });
  } catch (err) {
    if (request.signal.aborted) throw err;
    fail(err instanceof Error ? err.message : String(err));
  }
  if (response.truncated && response.status === 200)
    fail(`the answer was larger than ${SEARCH_ANSWER_MAX_BYTES} bytes`);

  const text = new TextDecoder().decode(response.body);
  if (response.status !== 200) {
    const hint = STATUS_HINTS[response.status] ?? (response.status >= 500 ? "server error" : undefined);
    const detail = errorDetail(text);
    fail(`HTTP ${response.status}${hint ? ` (${hint})` : ""}${detail ? `: ${detail}` : ""}`);
  }
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    fail("the answer was not JSON");
  }
  const answer = v.safeParse(BraveAnswer, json);
  if (!answer.success) fail("the answer did not have the expected shape");
  const results = (answer.output.web?.results ?? []).slice(0, request.count);
  return Promise.all(
    results.map(async (result) => ({
      title: await plainText(result.title),
      url: result.url,
      snippet: clipSnippet(await plainText(result.description)),
    })),
  );
}

// Brave marks the matched words with <strong> and escapes the rest as HTML; the model gets plain text.
async function plainText(html: string): Promise<string> {
  return inlineText(await parseMarkup(html));
}

function errorDetail(text: string): string | undefined {
  try {
    const parsed = v.safeParse(BraveError, JSON.parse(text));
    return parsed.success ? (parsed.output.error.detail ?? parsed.output.error.code) : undefined;
  } catch {
    return undefined;
  }
}

function fail(reason: string): never {
  throw SearchFailed(`Brave Search failed: ${reason}`, { backend: "brave", reason });
}
