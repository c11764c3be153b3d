import { createHash } from "node:crypto";

/**
 * A fake of the three chat-provider authorization servers on one loopback origin, under /codex, /anthropic and
 * /xai (what FERMIX_TEST_OAUTH_BASE_URL points fermix at). The real wire: an authorize endpoint that 302s back to the
 * registered loopback redirect with a code and the state, token endpoints taking a form body (Claude's: JSON),
 * PKCE checked against the S256 challenge, rotating refresh tokens, and 400 {"error":"invalid_grant"} for a
 * code or refresh token it does not know. Codex tokens are JWTs whose claims carry the email and the ChatGPT
 * account id; Grok's access token says its expiry only in its `exp` claim (no expires_in), as xAI's does.
 */
export type ProviderName = "codex" | "anthropic" | "xai";

const CLIENTS: Record<ProviderName, string> = {
  codex: "app_EMoamEEZ73f0CkXaXp7hrann",
  anthropic: "9d1c250a-e61b-44d9-88ed-5944d1962f5e",
  xai: "b1a00492-073a-47ea-816f-4c329264a828",
};
const REDIRECT: Record<"codex" | "xai", RegExp> = {
  codex: /^http:\/\/localhost:\d+\/auth\/callback$/,
  xai: /^http:\/\/127\.0\.0\.1:\d+\/callback$/,
};

export type TokenCall = { provider: ProviderName; grant_type?: string; status: number; error?: string };

export type FakeProviderOAuth = {
  /** What FERMIX_TEST_OAUTH_BASE_URL gets. */
  base: string;
  authorizations: Array<{ provider: ProviderName; query: URLSearchParams }>;
  tokenCalls: TokenCall[];
  /** Every access and refresh token handed out, to look for where they must not be. */
  issued: string[];
  /** Seconds a new access token lives (default 3600). */
  expiresIn: number;
  /** A refresh token the fake knows, as if a sign-in had issued it (for tests that write auth.json). */
  seedRefreshToken(provider: ProviderName): string;
  /** Forgets every refresh token: the user revoked the app. */
  revokeAll(): void;
  /**
   * The next n token requests get HTTP `status` with a server error body; `describe`, given the request's fields,
   * adds an error_description (a careless server quoting what it was sent).
   */
  failNext(status: number, n?: number, describe?: (form: Record<string, string>) => string): void;
  /** The next good token answer carries `bytes` more of padding (an endpoint answering past any sane size). */
  padNext(bytes: number): void;
  /** Holds refresh answers until `release()` (to keep a refresh in flight while another process waits). */
  holdRefreshes(): { release(): void };
  /** Plays the browser: opens the authorize URL and follows the redirect to fermix's loopback listener. */
  approve(authorizeUrl: string): Promise<Response>;
  close(): void;
};

type Grant = { provider: ProviderName; redirectUri: string; challenge: string; used: boolean };

export function startFakeProviderOAuth(): FakeProviderOAuth {
  const grants = new Map<string, Grant>();
  const refreshTokens = new Map<string, ProviderName>();
  const authorizations: FakeProviderOAuth["authorizations"] = [];
  const tokenCalls: TokenCall[] = [];
  const issued: string[] = [];
  let failures: { status: number; n: number; describe?: (form: Record<string, string>) => string } | undefined;
  let hold: Promise<void> | undefined;
  let padding = 0;
  let n = 0;

  const authorize = (provider: ProviderName, url: URL): Response => {
    const q = url.searchParams;
    authorizations.push({ provider, query: q });
    const redirect = q.get("redirect_uri") ?? "";
    if (provider === "anthropic") return new Response("no browser sign-in here", { status: 404 });
    if (q.get("client_id") !== CLIENTS[provider] || !REDIRECT[provider].test(redirect)) {
      return new Response("unknown client or redirect_uri", { status: 400 });
    }
    const back = new URL(redirect);
    back.searchParams.set("state", q.get("state") ?? "");
    const scope = q.get("scope") ?? "";
    const extrasOk =
      provider === "codex"
        ? q.get("codex_cli_simplified_flow") === "true" && scope.includes("offline_access")
        : q.get("plan") === "generic" && Boolean(q.get("nonce")) && scope.includes("api:access");
    if (q.get("response_type") !== "code" || q.get("code_challenge_method") !== "S256" || !extrasOk) {
      back.searchParams.set("error", "invalid_request");
    } else {
      const code = `code-${++n}-${crypto.randomUUID()}`;
      grants.set(code, { provider, redirectUri: redirect, challenge: q.get("code_challenge") ?? "", used: false });
      back.searchParams.set("code", code);
    }
    return new Response(null, { status: 302, headers: { Location: back.toString() } });
  };

  const fail = (provider: ProviderName, status: number, error: string, grant?: string): Response => {
    tokenCalls.push({ provider, grant_type: grant, status, error });
    return Response.json({ error, error_description: `fake: ${error}` }, { status });
  };

  const jwt = (claims: Record<string, unknown>) =>
    `${b64({ alg: "none", typ: "JWT" })}.${b64({ ...claims, jti: crypto.randomUUID() })}.sig`;

  const issue = (provider: ProviderName, grant: string): Response => {
    const now = Math.floor(Date.now() / 1000);
    const refresh = `fake-refresh-${provider}-${++n}-${crypto.randomUUID()}`;
    refreshTokens.set(refresh, provider);
    const body: Record<string, unknown> = { token_type: "Bearer", refresh_token: refresh };
    if (provider === "codex") {
      const auth = { "https://api.openai.com/auth": { chatgpt_account_id: "acct-fake-123" } };
      body.access_token = jwt({ exp: now + fake.expiresIn, ...auth });
      body.id_token = jwt({ email: "owner@example.com", ...auth });
      body.expires_in = fake.expiresIn;
    } else if (provider === "xai") {
      body.access_token = jwt({ exp: now + fake.expiresIn, email: "owner@example.com" });
    } else {
      body.access_token = `sk-ant-oat01-fake-${++n}-${crypto.randomUUID()}`;
      body.expires_in = fake.expiresIn;
    }
    issued.push(body.access_token as string, refresh);
    tokenCalls.push({ provider, grant_type: grant, status: 200 });
    if (padding) body.padding = "x".repeat(padding);
    padding = 0;
    return Response.json(body);
  };

  const token = async (provider: ProviderName, req: Request): Promise<Response> => {
    const form = await readBody(req, provider === "anthropic" ? "json" : "form");
    if (!form) return fail(provider, 400, "invalid_request");
    const grant = form.grant_type;
    if (failures && failures.n > 0) {
      failures.n--;
      tokenCalls.push({ provider, grant_type: grant, status: failures.status, error: "server_error" });
      const description = failures.describe ? { error_description: failures.describe(form) } : {};
      return Response.json({ error: "server_error", ...description }, { status: failures.status });
    }
    if (form.client_id !== CLIENTS[provider]) return fail(provider, 401, "invalid_client", grant);
    if (grant === "authorization_code") {
      const g = grants.get(form.code ?? "");
      if (!g || g.used || g.provider !== provider || g.redirectUri !== form.redirect_uri) {
        return fail(provider, 400, "invalid_grant", grant);
      }
      g.used = true;
      const expected = createHash("sha256")
        .update(form.code_verifier ?? "")
        .digest("base64url");
      if (expected !== g.challenge) return fail(provider, 400, "invalid_grant", grant);
      // xAI wants the challenge once more on the exchange.
      if (provider === "xai" && form.code_challenge !== g.challenge)
        return fail(provider, 400, "invalid_request", grant);
      return issue(provider, grant);
    }
    if (grant === "refresh_token") {
      const old = form.refresh_token ?? "";
      if (refreshTokens.get(old) !== provider) return fail(provider, 400, "invalid_grant", grant);
      refreshTokens.delete(old); // rotating: the old one is spent
      if (hold) await hold;
      return issue(provider, grant);
    }
    return fail(provider, 400, "unsupported_grant_type", grant);
  };

  const server = Bun.serve({
    hostname: "127.0.0.1",
    port: 0,
    fetch(req) {
      const url = new URL(req.url);
      const [, provider, action] = url.pathname.split("/");
      if (provider !== "codex" && provider !== "anthropic" && provider !== "xai") {
        return new Response("not found", { status: 404 });
      }
      if (action === "authorize" && req.method === "GET") return authorize(provider, url);
      if (action === "token" && req.method === "POST") return token(provider, req);
      return new Response("not found", { status: 404 });
    },
  });

  const fake: FakeProviderOAuth = {
    base: `http://127.0.0.1:${server.port}`,
    authorizations,
    tokenCalls,
    issued,
    expiresIn: 3600,
    seedRefreshToken(provider) {
      const refresh = `fake-refresh-${provider}-seed-${++n}-${crypto.randomUUID()}`;
      refreshTokens.set(refresh, provider);
      issued.push(refresh);
      return refresh;
    },
    revokeAll() {
      refreshTokens.clear();
    },
    failNext(status, count = 1, describe) {
      failures = { status, n: count, describe };
    },
    padNext(bytes) {
      padding = bytes;
    },
    holdRefreshes() {
      let release!: () => void;
      hold = new Promise<void>((resolve) => {
        release = resolve;
      });
      return {
        release() {
          hold = undefined;
          release();
        },
      };
    },
    async approve(authorizeUrl) {
      const res = await fetch(authorizeUrl, { redirect: "manual" });
      const location = res.headers.get("Location");
      if (res.status !== 302 || !location) throw new Error(`the fake refused to authorize: ${res.status}`);
      // A browser resolves localhost to the loopback address fermix listens on.
      const redirect = new URL(location);
      if (redirect.hostname === "localhost") redirect.hostname = "127.0.0.1";
      return fetch(redirect);
    },
    close() {
      server.stop(true);
    },
  };
  return fake;
}

function b64(value: unknown): string {
  return Buffer.from(JSON.stringify(value)).toString("base64url");
}

async function readBody(req: Request, encoding: "form" | "json"): Promise<Record<string, string> | undefined> {
  const type = req.headers.get("Content-Type") ?? "";
  try {
    if (encoding === "json") {
      if (!type.startsWith("application/json")) return undefined;
      return (await req.json()) as Record<string, string>;
    }
    if (!type.startsWith("application/x-www-form-urlencoded")) return undefined;
    return Object.fromEntries(new URLSearchParams(await req.text()));
  } catch {
    return undefined;
  }
}
