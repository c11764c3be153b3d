import { NetBlocked } from "../../net/net-error.ts";
import type { MarkupNode } from "./_html-markdown.ts";
import { inlineText, parseMarkup } from "./_html-text.ts";
import { parseableLength } from "./_markup-budget.ts";
import { SEARCH_ANSWER_MAX_BYTES } from "./_search-http.ts";
import {
  clipSnippet,
  SEARCH_USER_AGENT,
  SearchFailed,
  type SearchRequest,
  type SearchResult,
} from "./search-backend.ts";
import { DUCKDUCKGO_URL } from "./search-urls.ts";

export async function searchDuckDuckGo(request: SearchRequest, endpoint = DUCKDUCKGO_URL): Promise<SearchResult[]> {
  const url = new URL(endpoint);
  url.searchParams.set("q", request.query);
  let response: Awaited<ReturnType<SearchRequest["net"]>>;
  try {
    response = await request.net(url.href, {
      headers: { accept: "text/html", "user-agent": SEARCH_USER_AGENT },
      // A results page is tens of KB. Past the cap the door stops reading and the page is parsed as far as it
      // came: an HTML parser takes a cut page, and the first results are the ones wanted.
      maxBytes: SEARCH_ANSWER_MAX_BYTES,
      signal: request.signal,
    });
  } catch (err) {
    if (request.signal.aborted) throw err;
    const reason = NetBlocked.is(err) ? `blocked: ${err.message}` : err instanceof Error ? err.message : String(err);
    throw SearchFailed(`DuckDuckGo could not be reached: ${reason}`, { backend: "duckduckgo", reason });
  }
  // DuckDuckGo answers 202 (and sometimes 403) with a challenge page when it takes us for a bot.
  if (response.status !== 200) {
    const reason = `HTTP ${response.status}${response.status === 202 || response.status === 403 || response.status === 429 ? " (DuckDuckGo is limiting automated searches)" : ""}`;
    throw SearchFailed(`DuckDuckGo answered ${reason}`, { backend: "duckduckgo", reason });
  }
  const html = new TextDecoder().decode(response.body);
  if (/anomaly-modal|challenge-form|g-recaptcha/.test(html)) {
    const reason = "DuckDuckGo asked for a captcha (it is limiting automated searches)";
    throw SearchFailed(reason, { backend: "duckduckgo", reason });
  }
  return (await parseDuckDuckGoHtml(html)).slice(0, request.count);
}

const TITLE = ".result__a, .result-link";
const SNIPPET = ".result__snippet, .result-snippet";

/**
 * Reads results from the page: each starts at an `a.result__a` (title and link) and may have a `.result__snippet`.
 * Links arrive wrapped in DuckDuckGo's `/l/?uddg=` redirect and are unwrapped; ads, which point back at
 * duckduckgo.com, are dropped.
 */
export async function parseDuckDuckGoHtml(html: string): Promise<SearchResult[]> {
  // DuckDuckGo's page is flat, so this never cuts it; it bounds the parse should something else answer in its place.
  const document = await parseMarkup(html.slice(0, parseableLength(html)));
  const found: SearchResult[] = [];
  let current: SearchResult | undefined;
  // The title or snippet last read: a match inside it (a snippet within a title) is part of its text, not a result.
  let read: MarkupNode | undefined;

  for (const element of document.querySelectorAll(`${TITLE}, ${SNIPPET}`)) {
    if (read?.contains(element)) continue;
    if (element.matches(TITLE)) {
      if (current !== undefined && current.url !== "") found.push(current);
      current = { title: inlineText(element), url: unwrapLink(element.getAttribute("href") ?? "") ?? "", snippet: "" };
      read = element;
    } else if (current !== undefined) {
      current.snippet = clipSnippet(inlineText(element));
      read = element;
    }
  }
  if (current !== undefined && current.url !== "") found.push(current);

  const seen = new Set<string>();
  return found.filter((result) => !seen.has(result.url) && seen.add(result.url));
}

/** `//duckduckgo.com/l/?uddg=https%3A%2F%2Fexample.com%2F&rut=…` → `https://example.com/`; ads → undefined. */
export function unwrapLink(href: string): string | undefined {
  let url: URL;
  try {
    url = new URL(href, "https://duckduckgo.com/");
    const host = url.hostname;
    if (host === "duckduckgo.com" || host.endsWith(".duckduckgo.com")) {
      const target = url.pathname === "/l/" ? url.searchParams.get("uddg") : null;
      if (target === null) return undefined;
      url = new URL(target);
    }
  } catch {
    return undefined;
  }
  return url.protocol === "http:" || url.protocol === "https:" ? url.href : undefined;
}
