import type { FermixPaths } from "../config/paths.ts";
import { readCapped } from "../net/read-capped.ts";
import {
  AUTH_REQUIRED,
  clearedSessionCookie,
  contentSecurityPolicy,
  csrfValid,
  hostAllowed,
  isStateChanging,
  originAllowed,
  refuse,
  sessionCookie,
  withSecurityHeaders,
} from "./gates.ts";
import { layout, STYLESHEET } from "./html.ts";
import { consumeLaunchToken, currentFingerprint } from "./launch-token.ts";
import type { Page, WebDeps } from "./page.ts";
import { restartedTo } from "./pages/restart.ts";
import { PAGES } from "./pages.ts";
import { createPersistentSessionStore, sessionsFile } from "./session-store.ts";
import type { Session } from "./session-store-contract.ts";
import type { WebSite } from "./web-server-contract.ts";

/** The forms are a few fields; anything past this is refused unread. */
const MAX_FORM_BYTES = 64 * 1024;

export type WebSiteOptions = {
  paths: FermixPaths["web"];
  deps: WebDeps;
  now: () => number;
  log: { info(msg: string): void; error(msg: string): void };
  pages?: readonly Page[];
  /** [mcp.inbound] over streamable HTTP: its path bypasses the page gates for its own (bearer, Origin). */
  mcp?: { path: string; handle(request: Request, port: number): Promise<Response> };
};

/**
 * The local setup site behind the daemon's listener on 127.0.0.1 (src/web/daemon-web.ts): every request passes the
 * Host gate, a state-changing one the Origin gate before any routing, then the session cookie and, for a form, its
 * token. The one way in is a launch link minted by `fermix setup --web`, exchanged once for the session cookie.
 */
export function createWebSite(opts: WebSiteOptions): WebSite {
  const sessions = createPersistentSessionStore({ now: opts.now, file: sessionsFile(opts.paths) });
  const pages = opts.pages ?? PAGES;
  const nav = pages.map(({ path, title }) => ({ path, title }));

  /** `port`: the one listened on, which the Host and Origin gates compare against. */
  async function handle(request: Request, port: number): Promise<Response> {
    if (!hostAllowed(request.headers.get("host"), port)) return refuse(403, "unknown host\n");
    if (opts.mcp && new URL(request.url).pathname === opts.mcp.path) return opts.mcp.handle(request, port);
    // CSRF, before routing: no other site's POST reaches any path, the launch exchange and logout included.
    if (isStateChanging(request.method) && !originAllowed(request.headers, port)) {
      return refuse(403, "cross-origin request refused\n");
    }
    const url = new URL(request.url);
    const method = request.method === "HEAD" ? "GET" : request.method;
    if (method === "GET" && url.pathname === "/style.css") {
      return new Response(STYLESHEET, { headers: { "content-type": "text/css; charset=utf-8" } });
    }
    if (method === "GET" && url.pathname === "/setup" && url.searchParams.has("t")) {
      return exchange(url.searchParams.get("t") ?? "");
    }
    const session = sessions.find(request.headers.get("cookie"), currentFingerprint(opts.paths));
    if (!session) return refuse(403, AUTH_REQUIRED);
    if (isStateChanging(method)) {
      const form = await readForm(request);
      if (!form || !csrfValid(session, form.get("csrf"))) {
        return refuse(403, "the form's token is missing or stale; reload the page and try again\n");
      }
      const target = pages.find((p) => p.path === url.pathname && p.submit);
      if (target) return submit(target, form, session);
      return post(url.pathname, session);
    }
    if (method !== "GET") return refuse(405, "method not allowed\n");
    // The configuration pages arrive under /setup; until then a bare /setup is the home page.
    if (url.pathname === "/setup") return redirect("/");
    const restarted = restartedTo(url, pages, opts.deps.restart?.pid ?? process.pid);
    if (restarted) return redirect(restarted);
    const page = pages.find((p) => p.path === url.pathname);
    if (!page) return refuse(404, "not found\n");
    const body = await page.render(opts.deps, {
      csrf: session.csrf,
      notice: url.searchParams.get("notice") ?? undefined,
      error: url.searchParams.get("error") ?? undefined,
      query: url.searchParams,
    });
    const text = layout({ title: page.title, nav, current: page.path, session, body });
    const targets = page.formTargets?.(opts.deps) ?? [];
    const csp =
      targets.length || page.scriptHashes?.length
        ? { "content-security-policy": contentSecurityPolicy(targets, { scriptHashes: page.scriptHashes }) }
        : {};
    return new Response(text, { headers: { "content-type": "text/html; charset=utf-8", ...csp } });
  }

  /** The launch token for a session cookie, once; the token's URL is left behind by a redirect to a plain path. */
  function exchange(token: string): Response {
    const fingerprint = consumeLaunchToken(opts.paths, token, opts.now());
    if (!fingerprint)
      return refuse(403, `this launch link is used, expired or from an older setup token\n${AUTH_REQUIRED}`);
    const session = sessions.create(fingerprint);
    opts.log.info("web: a browser session started from a launch link");
    return redirect("/", { "set-cookie": sessionCookie(session.id) });
  }

  /** A page's form: post, then redirect to a GET (the notice or the error in the query), so reloads never repost. */
  async function submit(page: Page, form: URLSearchParams, _session: Session): Promise<Response> {
    const outcome = await page.submit!(form, opts.deps);
    if (outcome.ok && outcome.location) return redirect(outcome.location);
    const to = new URL(outcome.ok ? (outcome.redirect ?? page.path) : page.path, "http://127.0.0.1");
    to.searchParams.set(outcome.ok ? "notice" : "error", outcome.ok ? outcome.notice : outcome.error);
    return redirect(`${to.pathname}${to.search}`);
  }

  function post(path: string, session: Session): Response {
    if (path === "/logout") {
      sessions.delete(session.id);
      return new Response("logged out; run `fermix setup --web` to open the page again\n", {
        headers: { "content-type": "text/plain; charset=utf-8", "set-cookie": clearedSessionCookie() },
      });
    }
    return refuse(404, "not found\n");
  }

  async function guarded(request: Request, port: number): Promise<Response> {
    try {
      return withSecurityHeaders(await handle(request, port));
    } catch (err) {
      // The path only: a query may hold a launch token, which never reaches a log.
      const path = new URL(request.url).pathname;
      opts.log.error(`web: ${request.method} ${path} failed: ${(err as Error)?.message ?? String(err)}`);
      return withSecurityHeaders(refuse(500, "the page failed; see fermix.log\n"));
    }
  }

  return { handle: guarded, sessionCount: () => sessions.size() };
}

function redirect(location: string, headers: Record<string, string> = {}): Response {
  return new Response(null, { status: 303, headers: { location, ...headers } });
}

async function readForm(request: Request): Promise<URLSearchParams | undefined> {
  const type = request.headers.get("content-type") ?? "";
  if (!type.startsWith("application/x-www-form-urlencoded")) return undefined;
  const { body, truncated } = await readCapped(new Response(request.body), MAX_FORM_BYTES);
  if (truncated) return undefined;
  return new URLSearchParams(new TextDecoder().decode(body));
}
