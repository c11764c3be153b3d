import { bearer, json, record, type Seen } from "./recorder.ts";

const DOCS = "https://docs.github.com/rest";
const MEDIA = { "content-type": "application/json; charset=utf-8", "x-github-media-type": "github.v3; format=json" };

/**
 * A GitHub REST fake: /user/repos, /organizations (paged by `since`, the last id seen), issue creation, and
 * GitHub's error bodies `{message, documentation_url, status}` for 401, 403, 404 and the rate limits.
 * `mode` makes every request fail one way; `tokens` is the set accepted now (tests swap it to simulate expiry).
 */
export function fakeGitHub(opts: { tokens: string[]; orgs?: number }) {
  const seen: Seen[] = [];
  const state = {
    tokens: new Set(opts.tokens),
    mode: "ok" as "ok" | "forbidden" | "rate_limited" | "secondary_limit" | "redirect" | "html",
    created: [] as Array<Record<string, unknown>>,
  };
  const orgs = Array.from({ length: opts.orgs ?? 0 }, (_, i) => ({
    login: `org-${i + 1}`,
    id: (i + 1) * 10,
    node_id: `O_${i + 1}`,
    url: `https://api.github.com/orgs/org-${i + 1}`,
    description: null,
  }));

  const handler = async (request: Request): Promise<Response> => {
    const req = await record(request, seen);
    const token = bearer(req);
    if (token === undefined || !state.tokens.has(token)) {
      return json({ message: "Bad credentials", documentation_url: DOCS, status: "401" }, 401, MEDIA);
    }
    if (state.mode === "forbidden") {
      const message = "Resource not accessible by integration";
      return json({ message, documentation_url: DOCS, status: "403" }, 403, MEDIA);
    }
    if (state.mode === "rate_limited") {
      const limits = { "x-ratelimit-limit": "5000", "x-ratelimit-remaining": "0", "x-ratelimit-reset": "1700000000" };
      const message = "API rate limit exceeded for user ID 1.";
      return json({ message, documentation_url: DOCS, status: "403" }, 403, { ...MEDIA, ...limits });
    }
    if (state.mode === "secondary_limit") {
      const message = "You have exceeded a secondary rate limit.";
      return json({ message, documentation_url: DOCS, status: "429" }, 429, { ...MEDIA, "retry-after": "60" });
    }
    if (state.mode === "redirect") {
      return new Response(null, { status: 301, headers: { location: "https://169.254.169.254/latest/meta-data" } });
    }
    if (state.mode === "html") {
      return new Response("<html>unicorn</html>", { status: 200, headers: { "content-type": "text/html" } });
    }

    if (req.method === "GET" && req.path === "/user/repos") {
      const repos = ["alpha", "beta"].map((name, i) => ({
        id: i + 1,
        name,
        full_name: `ada/${name}`,
        private: i === 1,
        owner: { login: "ada", id: 1 },
        html_url: `https://github.com/ada/${name}`,
        description: null,
        default_branch: "main",
        updated_at: "2024-01-01T00:00:00Z",
        visibility: req.query.get("visibility"),
      }));
      return json(repos, 200, MEDIA);
    }
    if (req.method === "GET" && req.path === "/organizations") {
      const since = Number(req.query.get("since") ?? 0);
      const perPage = Number(req.query.get("per_page") ?? 30);
      return json(orgs.filter((o) => o.id > since).slice(0, perPage), 200, MEDIA);
    }
    const issues = /^\/repos\/([^/]+)\/([^/]+)\/issues$/.exec(req.path);
    if (req.method === "POST" && issues) {
      const input = JSON.parse(req.body || "{}");
      if (typeof input.title !== "string") {
        const message = 'Invalid request.\n\n"title" wasn\'t supplied.';
        return json({ message, documentation_url: DOCS, status: "422" }, 422, MEDIA);
      }
      const number = state.created.length + 1;
      const issue = {
        id: 1000 + number,
        number,
        title: input.title,
        body: input.body ?? null,
        labels: (input.labels ?? []).map((name: string) => ({ name })),
        state: "open",
        html_url: `https://github.com/${issues[1]}/${issues[2]}/issues/${number}`,
      };
      state.created.push(issue);
      return json(issue, 201, MEDIA);
    }
    return json({ message: "Not Found", documentation_url: DOCS, status: "404" }, 404, MEDIA);
  };
  return { handler, seen, state };
}
