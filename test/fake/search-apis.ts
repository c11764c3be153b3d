/**
 * Fakes of the keyed web search APIs web_search can use, speaking their wire formats as documented: Exa
 * (POST /search, key in x-api-key, `{requestId, results: [{title, url, highlights}]}`, errors
 * `{requestId, error, tag}`), Tavily (POST /search, `Authorization: Bearer tvly-…`, `{query, results: [{title,
 * url, content, score}]}`, errors `{detail: {error}}`, 432 for a plan's limit) and Firecrawl v2 (POST /v2/search,
 * `Authorization: Bearer fc-…`, `{success, data: {web: [{url, title, description, position}]}}`, errors
 * `{success: false, error}`). Each refuses a missing or wrong key as the real one does, before anything else;
 * `answer` replaces the normal reply to play credits running out, an outage or no results.
 */

export type SearchHit = { title: string; url: string; snippet: string };

export type SeenSearch = { path: string; headers: Headers; body: Record<string, unknown> };

export type FakeSearchApi = {
  handle(request: Request): Promise<Response>;
  seen: SeenSearch[];
};

type Options = {
  apiKey: string;
  hits?: SearchHit[];
  /** Replaces the normal answer once the key is accepted (credits gone, an outage, …). */
  answer?: (body: Record<string, unknown>) => Response;
};

const json = (body: unknown, status = 200) => Response.json(body, { status });
const REQUEST_ID = "b3c1f0a2d4e5f60718293a4b5c6d7e8f";

async function readBody(request: Request): Promise<Record<string, unknown> | undefined> {
  try {
    const body = (await request.json()) as unknown;
    return body && typeof body === "object" && !Array.isArray(body) ? (body as Record<string, unknown>) : undefined;
  } catch {
    return undefined;
  }
}

function fake(
  path: string,
  opts: Options,
  auth: (headers: Headers) => string | undefined,
  refuse: (status: number, message: string) => Response,
  reply: (body: Record<string, unknown>, hits: SearchHit[]) => Response,
): FakeSearchApi {
  const seen: SeenSearch[] = [];
  return {
    seen,
    async handle(request) {
      const url = new URL(request.url);
      const body = (await readBody(request)) ?? {};
      seen.push({ path: url.pathname, headers: request.headers, body });
      if (url.pathname !== path) return refuse(404, `Cannot ${request.method} ${url.pathname}`);
      if (request.method !== "POST") return refuse(405, "Method Not Allowed");
      const key = auth(request.headers);
      if (!key) return refuse(401, "missing API key");
      if (key !== opts.apiKey) return refuse(401, "invalid API key");
      if (typeof body.query !== "string" || body.query === "") return refuse(400, "query is required");
      return opts.answer ? opts.answer(body) : reply(body, opts.hits ?? []);
    },
  };
}

export function fakeExa(opts: Options): FakeSearchApi {
  return fake(
    "/search",
    opts,
    (h) => h.get("x-api-key") ?? undefined,
    (status, message) => exaError(status, message),
    (body, hits) =>
      json({
        requestId: REQUEST_ID,
        resolvedSearchType: "neural",
        results: hits.slice(0, Number(body.numResults ?? 10)).map((hit, i) => ({
          id: hit.url,
          title: hit.title,
          url: hit.url,
          publishedDate: "2026-11-02T00:00:00.000Z",
          author: null,
          score: 0.9 - i / 100,
          highlights: [hit.snippet],
          highlightScores: [0.42],
        })),
        searchType: "neural",
        costDollars: { total: 0.005 },
      }),
  );
}

export function exaError(status: number, message: string): Response {
  const tag =
    status === 401
      ? "INVALID_API_KEY"
      : status === 402
        ? "NO_MORE_CREDITS"
        : status === 429
          ? "RATE_LIMIT_EXCEEDED"
          : status === 400
            ? "INVALID_REQUEST_BODY"
            : "INTERNAL_ERROR";
  return json({ requestId: REQUEST_ID, error: message, tag }, status);
}

export function fakeTavily(opts: Options): FakeSearchApi {
  return fake(
    "/search",
    opts,
    (h) => /^Bearer (.+)$/.exec(h.get("authorization") ?? "")?.[1],
    (status, message) => tavilyError(status, status === 401 ? `Unauthorized: ${message}.` : message),
    (body, hits) =>
      json({
        query: body.query,
        follow_up_questions: null,
        answer: null,
        images: [],
        results: hits.slice(0, Number(body.max_results ?? 5)).map((hit, i) => ({
          url: hit.url,
          title: hit.title,
          content: hit.snippet,
          score: 0.8 - i / 100,
          raw_content: null,
        })),
        response_time: 1.07,
        request_id: "123e4567-e89b-12d3-a456-426614174111",
      }),
  );
}

export function tavilyError(status: number, message: string): Response {
  return json({ detail: { error: message } }, status);
}

export function fakeFirecrawl(opts: Options): FakeSearchApi {
  return fake(
    "/v2/search",
    opts,
    (h) => /^Bearer (.+)$/.exec(h.get("authorization") ?? "")?.[1],
    (status, message) => firecrawlError(status, status === 401 ? "Unauthorized: Invalid token" : message),
    (body, hits) =>
      json({
        success: true,
        data: {
          web: hits.slice(0, Number(body.limit ?? 10)).map((hit, i) => ({
            url: hit.url,
            title: hit.title,
            description: hit.snippet,
            position: i + 1,
          })),
        },
        creditsUsed: 2,
        id: "019a1b2c-3d4e-7f00-8a9b-0c1d2e3f4a5b",
      }),
  );
}

export function firecrawlError(status: number, message: string): Response {
  return json({ success: false, error: message }, status);
}
