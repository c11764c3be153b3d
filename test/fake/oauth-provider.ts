import { createHash } from "node:crypto";

/**
 * A fake OAuth 2.0 authorization server on loopback speaking the real wire: an authorize endpoint that
 * 302s back to the client's redirect_uri with a code and the state it was given, and a token endpoint that
 * checks the client's credentials (Basic or body, form or JSON as configured), the grant type, the code's
 * redirect_uri and the PKCE verifier against the S256 challenge (RFC 7636 §4.6), and refresh tokens.
 * `approve` plays the user's browser: it opens the authorize URL and follows the redirect to fermix.
 */
export type FakeOAuthOptions = {
  clientId?: string;
  clientSecret?: string;
  clientAuth?: "basic" | "body";
  bodyEncoding?: "form" | "json";
  /** Seconds; undefined leaves expires_in out (GitHub OAuth apps). */
  expiresIn?: number;
  refreshTokens?: boolean;
  /** A new refresh token on every refresh, the old one refused from then on (X does this). */
  rotate?: boolean;
  /** Separator of the granted `scope` string: GitHub uses ",", the RFC a space. */
  scopeSeparator?: string;
  /** Fields added to every token response (Notion's owner, Google's id_token). */
  extra?: Record<string, unknown>;
  /** GitHub answers token errors with HTTP 200. */
  errorsAs200?: boolean;
};

export type TokenCall = { grant_type?: string; status: number; error?: string };

export type FakeOAuthProvider = {
  endpoints: { authorizeUrl: string; tokenUrl: string };
  clientId: string;
  clientSecret: string;
  /** Every authorize request's query, in order. */
  authorizations: URLSearchParams[];
  tokenCalls: TokenCall[];
  /** Every access and refresh token handed out, so tests can look for them where they must not be. */
  issued: string[];
  /** The next authorize request redirects with `error=<error>` instead of a code. */
  denyNext(error: string): void;
  /** Makes every refresh token so far unknown, as a user revoking the app does. */
  revokeAll(): void;
  approve(authorizeUrl: string, tamper?: (redirect: URL) => void): Promise<Response>;
  close(): void;
};

type Grant = { redirectUri: string; challenge: string; scope: string; used: boolean };

export function startFakeOAuthProvider(opts: FakeOAuthOptions = {}): FakeOAuthProvider {
  const clientId = opts.clientId ?? "fake-client";
  const clientSecret = opts.clientSecret ?? "fake-secret-s3cr3t";
  const grants = new Map<string, Grant>();
  const refreshTokens = new Map<string, string>(); // refresh token → scope
  const authorizations: URLSearchParams[] = [];
  const tokenCalls: TokenCall[] = [];
  const issued: string[] = [];
  let deny: string | undefined;
  let n = 0;

  const authorize = (url: URL): Response => {
    const q = url.searchParams;
    authorizations.push(q);
    const redirect = q.get("redirect_uri") ?? "";
    if (q.get("client_id") !== clientId || !redirect.startsWith("http://127.0.0.1:")) {
      return new Response("unknown client or redirect_uri", { status: 400 });
    }
    const back = new URL(redirect);
    back.searchParams.set("state", q.get("state") ?? "");
    if (deny) {
      back.searchParams.set("error", deny);
      back.searchParams.set("error_description", "The user said no");
      deny = undefined;
    } else if (q.get("response_type") !== "code" || q.get("code_challenge_method") !== "S256") {
      back.searchParams.set("error", "invalid_request");
    } else {
      const code = `code-${++n}`;
      grants.set(code, {
        redirectUri: redirect,
        challenge: q.get("code_challenge") ?? "",
        scope: q.get("scope") ?? "",
        used: false,
      });
      back.searchParams.set("code", code);
    }
    return new Response(null, { status: 302, headers: { Location: back.toString() } });
  };

  const fail = (status: number, error: string, grant?: string): Response => {
    tokenCalls.push({ grant_type: grant, status, error });
    return Response.json({ error, error_description: `fake: ${error}` }, { status: opts.errorsAs200 ? 200 : status });
  };

  const issue = (grant: string, scope: string, refresh?: string): Response => {
    const access = `fake-access-${++n}-${crypto.randomUUID()}`;
    const body: Record<string, unknown> = { access_token: access, token_type: "bearer", ...opts.extra };
    issued.push(access);
    if (scope) body.scope = scope.split(" ").join(opts.scopeSeparator ?? " ");
    if (opts.expiresIn !== undefined) body.expires_in = opts.expiresIn;
    if (refresh) {
      body.refresh_token = refresh;
      refreshTokens.set(refresh, scope);
      issued.push(refresh);
    }
    tokenCalls.push({ grant_type: grant, status: 200 });
    return Response.json(body);
  };

  const token = async (req: Request): Promise<Response> => {
    const form = await readBody(req, opts.bodyEncoding ?? "form");
    if (!form) return fail(400, "invalid_request");
    const grant = form.grant_type;
    if (!clientOk(req, form, opts.clientAuth ?? "body", clientId, clientSecret))
      return fail(401, "invalid_client", grant);
    if (grant === "authorization_code") {
      const g = grants.get(form.code ?? "");
      if (!g || g.used || g.redirectUri !== form.redirect_uri) return fail(400, "invalid_grant", grant);
      g.used = true;
      const expected = createHash("sha256")
        .update(form.code_verifier ?? "")
        .digest("base64url");
      if (expected !== g.challenge) return fail(400, "invalid_grant", grant);
      return issue(
        grant,
        g.scope,
        opts.refreshTokens === false ? undefined : `fake-refresh-${++n}-${crypto.randomUUID()}`,
      );
    }
    if (grant === "refresh_token") {
      const old = form.refresh_token ?? "";
      const scope = refreshTokens.get(old);
      if (scope === undefined) return fail(400, "invalid_grant", grant);
      if (!opts.rotate) return issue(grant, scope);
      refreshTokens.delete(old);
      return issue(grant, scope, `fake-refresh-${++n}-${crypto.randomUUID()}`);
    }
    return fail(400, "unsupported_grant_type", grant);
  };

  const server = Bun.serve({
    hostname: "127.0.0.1",
    port: 0,
    fetch(req) {
      const url = new URL(req.url);
      if (url.pathname === "/authorize" && req.method === "GET") return authorize(url);
      if (url.pathname === "/token" && req.method === "POST") return token(req);
      return new Response("not found", { status: 404 });
    },
  });
  const origin = `http://127.0.0.1:${server.port}`;

  return {
    endpoints: { authorizeUrl: `${origin}/authorize`, tokenUrl: `${origin}/token` },
    clientId,
    clientSecret,
    authorizations,
    tokenCalls,
    issued,
    denyNext(error) {
      deny = error;
    },
    revokeAll() {
      refreshTokens.clear();
    },
    async approve(authorizeUrl, tamper) {
      const res = await fetch(authorizeUrl, { redirect: "manual" });
      const location = res.headers.get("Location");
      if (res.status !== 302 || !location) throw new Error(`the fake refused to authorize: ${res.status}`);
      const redirect = new URL(location);
      tamper?.(redirect);
      return fetch(redirect);
    },
    close() {
      server.stop(true);
    },
  };
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

function clientOk(
  req: Request,
  form: Record<string, string>,
  auth: "basic" | "body",
  clientId: string,
  clientSecret: string,
): boolean {
  if (auth === "body") return form.client_id === clientId && form.client_secret === clientSecret;
  const header = req.headers.get("Authorization") ?? "";
  if (!header.startsWith("Basic ")) return false;
  const [id, secret] = Buffer.from(header.slice(6), "base64").toString("utf8").split(":").map(decodeURIComponent);
  return id === clientId && secret === clientSecret;
}
