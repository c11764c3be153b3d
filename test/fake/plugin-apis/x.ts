import { bearer, json, record, type Seen } from "./recorder.ts";

const ME = { id: "1460035790245556224", name: "Ada", username: "ada_builds" };

/**
 * An X API v2 fake: /2/users/me, recent search (paged by `next_token`) and user timelines (paged by
 * `pagination_token`), both answering `meta.next_token` until the last page; posting answers 201, liking 200.
 * Errors are X's problem documents `{title, type, status, detail}`; its rate limit headers are `x-rate-limit-*`.
 */
export function fakeX(opts: { token: string; posts?: number }) {
  const seen: Seen[] = [];
  const state = {
    mode: "ok" as "ok" | "forbidden" | "rate_limited",
    retryAfter: undefined as string | undefined,
    posts: Array.from({ length: opts.posts ?? 0 }, (_, i) => postOf(String(1800000000000000000n - BigInt(i)), i)),
    created: [] as Array<Record<string, unknown>>,
  };

  const handler = async (request: Request): Promise<Response> => {
    const req = await record(request, seen);
    if (bearer(req) !== opts.token) return problem(401, "Unauthorized", "Unauthorized");
    if (state.mode === "forbidden") return problem(403, "Forbidden", "You are not permitted to perform this action.");
    if (state.mode === "rate_limited") {
      const headers: Record<string, string> = {
        "x-rate-limit-limit": "450",
        "x-rate-limit-remaining": "0",
        "x-rate-limit-reset": "1750000000",
      };
      if (state.retryAfter) headers["retry-after"] = state.retryAfter;
      return problem(429, "Too Many Requests", "Too Many Requests", headers);
    }

    if (req.method === "GET" && req.path === "/2/users/me") return json({ data: ME });
    const timeline = /^\/2\/users\/(\d+)\/tweets$/.exec(req.path);
    if (req.method === "GET" && (req.path === "/2/tweets/search/recent" || timeline)) {
      const max = Number(req.query.get("max_results") ?? 10);
      const lowest = timeline ? 5 : 10;
      if (max < lowest || max > 100) {
        return json(
          {
            errors: [
              {
                parameters: { max_results: [String(max)] },
                message: `The \`max_results\` query parameter value [${max}] is not between ${lowest} and 100`,
              },
            ],
            title: "Invalid Request",
            detail: "One or more parameters to your request was invalid.",
            type: "https://api.twitter.com/2/problems/invalid-request",
          },
          400,
        );
      }
      const cursor = req.query.get(timeline ? "pagination_token" : "next_token");
      return json(page(state.posts, cursor, max));
    }
    if (req.method === "POST" && req.path === "/2/tweets") {
      const input = JSON.parse(req.body || "{}");
      const id = String(1900000000000000000n + BigInt(state.created.length));
      state.created.push({ id, ...input });
      return json({ data: { id, text: input.text, edit_history_tweet_ids: [id] } }, 201);
    }
    const likes = /^\/2\/users\/(\d+)\/likes$/.exec(req.path);
    if (req.method === "POST" && likes) {
      if (likes[1] !== ME.id) return problem(403, "Forbidden", "You are not permitted to perform this action.");
      return json({ data: { liked: true } });
    }
    return problem(404, "Not Found Error", "Could not find the requested resource.");
  };
  return { handler, seen, state, me: ME };
}

/** X's tokens are opaque; an empty result has no `data` at all, only `meta.result_count: 0`. */
function page(all: Array<{ id: string }>, cursor: string | null, max: number) {
  const start = cursor ? Number(cursor.replace("b26v89c19zqg8o3f", "")) : 0;
  const data = all.slice(start, start + max);
  if (data.length === 0) return { meta: { result_count: 0 } };
  const meta: Record<string, unknown> = {
    newest_id: data[0]!.id,
    oldest_id: data.at(-1)!.id,
    result_count: data.length,
  };
  if (start + max < all.length) meta.next_token = `b26v89c19zqg8o3f${start + max}`;
  return { data, meta };
}

function postOf(id: string, i: number) {
  return {
    id,
    text: `post number ${i + 1}`,
    author_id: ME.id,
    conversation_id: id,
    created_at: "2025-06-01T12:00:00.000Z",
    edit_history_tweet_ids: [id],
    public_metrics: {
      retweet_count: 0,
      reply_count: 0,
      like_count: i,
      quote_count: 0,
      bookmark_count: 0,
      impression_count: 10,
    },
  };
}

function problem(status: number, title: string, detail: string, headers?: Record<string, string>) {
  return json({ title, type: "about:blank", status, detail }, status, headers);
}
