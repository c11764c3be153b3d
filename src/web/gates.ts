import { randomToken, sameSecret } from "./launch-token.ts";
import type { Session, SessionStore } from "./session-store-contract.ts";

/*
 * The setup page's gates, each a small function of the request: Host (DNS rebinding), Origin (CSRF on any
 * state-changing request, before routing), the session cookie and the per-session form token. server.ts runs them in
 * that order; a refused request touches nothing (no launch token used, no session made).
 */

export const SESSION_COOKIE = "fermix_setup_session";

/** What a refused browser is told: the one way in is a fresh launch link from the terminal. */
export const AUTH_REQUIRED =
  "setup authorization required\nRun `fermix setup --web` in your terminal to open configuration in your browser.\n";

/** A session lives this long at most; a restart of the daemon ends it sooner (the store is in memory). */
export const SESSION_TTL_MS = 12 * 60 * 60_000;

/** The Host names the page answers to: loopback by name or number, with our port — never a rebound domain. */
export function hostAllowed(host: string | null, port: number): boolean {
  return host === `127.0.0.1:${port}` || host === `localhost:${port}`;
}

const SAFE_METHODS = new Set(["GET", "HEAD"]);

export function isStateChanging(method: string): boolean {
  return !SAFE_METHODS.has(method.toUpperCase());
}

/**
 * A state-changing request must come from our own page: its Origin is our loopback origin. A missing Origin is
 * refused too (every browser sends one on a POST), and so is a Sec-Fetch-Site that says another site sent it.
 */
export function originAllowed(headers: Headers, port: number): boolean {
  const origin = headers.get("origin");
  if (origin !== `http://127.0.0.1:${port}` && origin !== `http://localhost:${port}`) return false;
  const site = headers.get("sec-fetch-site");
  return site === null || site === "same-origin" || site === "none";
}

/** One cookie's value from a Cookie header. */
export function readCookie(header: string | null, name: string): string | undefined {
  for (const part of (header ?? "").split(";")) {
    const eq = part.indexOf("=");
    if (eq > 0 && part.slice(0, eq).trim() === name) return part.slice(eq + 1).trim();
  }
  return undefined;
}

/** HttpOnly (no script reads it), SameSite=Strict (no other site sends it), no Secure: the page is plain loopback HTTP. */
export function sessionCookie(id: string, maxAgeMs: number = SESSION_TTL_MS): string {
  return `${SESSION_COOKIE}=${id}; Path=/; HttpOnly; SameSite=Strict; Max-Age=${Math.floor(maxAgeMs / 1000)}`;
}

export function clearedSessionCookie(): string {
  return `${SESSION_COOKIE}=; Path=/; HttpOnly; SameSite=Strict; Max-Age=0`;
}

/**
 * Browser sessions, in the daemon's memory: a daemon restart logs every browser out (a fresh launch link brings it
 * back). Each is bound to the setup token's fingerprint at launch, so rotating the token ends them all.
 */
export function createSessionStore(deps: { now: () => number }): SessionStore {
  const sessions = new Map<string, Session>();
  return {
    create(fingerprint: string): Session {
      const session = {
        id: randomToken(),
        fingerprint,
        csrf: randomToken(),
        expiresAt: deps.now() + SESSION_TTL_MS,
      };
      sessions.set(session.id, session);
      return session;
    },
    find(cookieHeader: string | null, currentFingerprint: string | undefined): Session | undefined {
      const id = readCookie(cookieHeader, SESSION_COOKIE);
      const session = id ? sessions.get(id) : undefined;
      if (!session) return undefined;
      if (session.expiresAt <= deps.now() || !currentFingerprint || session.fingerprint !== currentFingerprint) {
        sessions.delete(session.id);
        return undefined;
      }
      return session;
    },
    delete(id: string): void {
      sessions.delete(id);
    },
    size: () => sessions.size,
  };
}

/** The form's hidden token against the session's, in constant time. */
export function csrfValid(session: Session, given: unknown): boolean {
  return typeof given === "string" && sameSecret(given, session.csrf);
}

/**
 * On every response, refusals included: no script at all (the pages are server-rendered forms), styles only from
 * our own stylesheet, no framing, no referrer (a launch URL never leaks onward), nothing cached. No CORS headers are
 * ever sent, so no other origin can read an answer.
 */
export const SECURITY_HEADERS: Readonly<Record<string, string>> = {
  "content-security-policy": contentSecurityPolicy(),
  "x-frame-options": "DENY",
  "x-content-type-options": "nosniff",
  // Not no-referrer: under it a browser sends `Origin: null` on its own same-origin form posts, which the Origin
  // gate must refuse. same-origin still keeps the launch URL from leaving the site as a referrer.
  "referrer-policy": "same-origin",
  "cache-control": "no-store",
  "cross-origin-opener-policy": "same-origin",
  "cross-origin-resource-policy": "same-origin",
};

/**
 * The policy, with `form-action` widened to `formTargets` for a page whose form answers with a redirect to another
 * site (OAuth's Connect 303s to the provider): Chrome and Safari check form-action against that redirect too.
 */
export function contentSecurityPolicy(
  formTargets: readonly string[] = [],
  opts: { scriptHashes?: readonly string[] } = {},
): string {
  const action = ["'self'", ...formTargets].join(" ");
  // Only a page that names them runs scripts: inline ones whose exact text is hashed here, nothing else.
  const hashes = opts.scriptHashes ?? [];
  const scripts = hashes.length ? ` script-src ${hashes.map((h) => `'${h}'`).join(" ")}; connect-src 'self';` : "";
  return `default-src 'none'; style-src 'self'; img-src 'self';${scripts} form-action ${action}; frame-ancestors 'none'; base-uri 'none'`;
}

export function withSecurityHeaders(response: Response): Response {
  const headers = new Headers(response.headers);
  for (const [name, value] of Object.entries(SECURITY_HEADERS)) {
    // A page's own policy (contentSecurityPolicy with its form targets) stands.
    if (name === "content-security-policy" && headers.has(name)) continue;
    headers.set(name, value);
  }
  return new Response(response.body, { status: response.status, statusText: response.statusText, headers });
}

export function refuse(status: number, text: string): Response {
  return new Response(text, { status, headers: { "content-type": "text/plain; charset=utf-8" } });
}
