import { NetBlocked } from "../../net/net-error.ts";
import { SEARCH_USER_AGENT, SearchFailed, type SearchRequest } from "./search-backend.ts";

/**
 * The most of a search API's answer read (ten results with snippets: tens of KB). Past it the guarded door stops
 * reading, and the search fails (SearchFailed, naming the limit) so web_search degrades to its fallback.
 */
export const SEARCH_ANSWER_MAX_BYTES = 2 * 1024 * 1024;

/** What every keyed search API's statuses mean to someone reading the fallback reason. */
const STATUS_HINTS: Record<number, string> = {
  400: "the request was refused",
  401: "the API key was refused",
  402: "the plan's credits are used up",
  403: "the API key may not use this endpoint",
  422: "the request was refused",
  429: "rate limited",
};

export type KeyedPost = {
  /** The backend's name in config (`exa`), for SearchFailed's data. */
  backend: string;
  /** How people call it (`Exa`), for messages. */
  label: string;
  endpoint: string;
  apiKey: string | undefined;
  /** The headers carrying the key, besides the common ones. */
  auth: (apiKey: string) => Record<string, string>;
  body: unknown;
  /** The vendor's error sentence out of its error body, when it has one. */
  errorDetail: (json: unknown) => string | undefined;
  /** Statuses the vendor gives a meaning of its own (Tavily's 432: plan limit). */
  hints?: Record<number, string>;
};

/**
 * POSTs a JSON search request to a keyed API and returns its parsed JSON answer. Everything that is not a 200
 * with a JSON body — no key, a refused key, no credits, a transport failure — throws SearchFailed, which is what
 * web_search degrades from; an answer with no results is the caller's to read, and degrades nothing.
 */
export async function postKeyedSearch(request: SearchRequest, post: KeyedPost): Promise<unknown> {
  const fail = (reason: string): never => {
    throw SearchFailed(`${post.label} search failed: ${reason}`, { backend: post.backend, reason });
  };
  if (post.apiKey === undefined || post.apiKey === "") fail("no API key is configured");
  let response: Awaited<ReturnType<SearchRequest["net"]>>;
  try {
    response = await request.net(post.endpoint, {
      method: "POST",
      headers: {
        accept: "application/json",
        "content-type": "application/json",
        "user-agent": SEARCH_USER_AGENT,
        ...post.auth(post.apiKey as string),
      },
      body: JSON.stringify(post.body),
      maxBytes: SEARCH_ANSWER_MAX_BYTES,
      signal: request.signal,
    });
  } catch (err) {
    if (request.signal.aborted) throw err;
    return fail(NetBlocked.is(err) ? `blocked: ${err.message}` : err instanceof Error ? err.message : String(err));
  }
  // The door stopped reading at the cap: a cut answer is refused, not parsed (an error answer keeps its status).
  if (response.truncated && response.status === 200)
    fail(`the answer was larger than ${SEARCH_ANSWER_MAX_BYTES} bytes`);
  const text = new TextDecoder().decode(response.body);
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    json = undefined;
  }
  if (response.status !== 200) {
    const status = response.status;
    const hint = post.hints?.[status] ?? STATUS_HINTS[status] ?? (status >= 500 ? "server error" : undefined);
    const detail = json === undefined ? undefined : safeDetail(post.errorDetail, json);
    fail(`HTTP ${status}${hint ? ` (${hint})` : ""}${detail ? `: ${detail}` : ""}`);
  }
  if (json === undefined) fail("the answer was not JSON");
  return json;
}

function safeDetail(read: (json: unknown) => string | undefined, json: unknown): string | undefined {
  try {
    const detail = read(json)?.trim();
    // A vendor sentence, never a page: long bodies are cut so a fallback reason stays one line.
    return detail ? (detail.length > 200 ? `${detail.slice(0, 199)}…` : detail) : undefined;
  } catch {
    return undefined;
  }
}

/** The shape check every backend ends with: a malformed answer is a failure too. */
export function malformed(backend: string, label: string): never {
  const reason = "the answer did not have the expected shape";
  throw SearchFailed(`${label} search failed: ${reason}`, { backend, reason });
}
