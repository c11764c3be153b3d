import type { RestartControl } from "../daemon-restart.ts";
import { type Html, html } from "../html.ts";
import { definePage, type Page } from "../page.ts";
import { RESTART_WAIT_SCRIPT, RESTART_WAIT_SCRIPT_HASH } from "../restart-wait-script.ts";
import { noticeOf } from "./_notice.ts";

export const RESTART_PATH = "/setup/restart";

/** How often the waiting page asks again without script (a meta refresh); the script asks every second. */
const WAIT_REFRESH_S = 2;

/**
 * Where the browser goes back to after a restart: a local path (no scheme, no host, no `//`), else the home page.
 * The server's redirect checks it against its own pages as well (`restartedTo`).
 */
export function localBack(raw: string | null | undefined): string {
  if (!raw?.startsWith("/") || raw.startsWith("//") || raw.includes("\\") || raw.length > 300) return "/";
  try {
    const url = new URL(raw, "http://127.0.0.1");
    if (url.origin !== "http://127.0.0.1") return "/";
    return `${url.pathname}${url.search}`;
  } catch {
    return "/";
  }
}

/** The waiting page's URL: the pid that was running when the restart began, and where to go afterwards. */
export function waitUrl(pid: number, back: string): string {
  return `${RESTART_PATH}?${new URLSearchParams({ from: String(pid), back: localBack(back) })}`;
}

/**
 * For the server, before rendering: a GET of the waiting page answered by a daemon other than the one that began
 * the restart means it is back — redirect to `back` when that is one of our pages, else home.
 */
export function restartedTo(url: URL, pages: readonly Page[], pid: number): string | undefined {
  const from = url.searchParams.get("from");
  if (url.pathname !== RESTART_PATH || !from || from === String(pid)) return undefined;
  const back = localBack(url.searchParams.get("back"));
  const path = new URL(back, "http://127.0.0.1").pathname;
  return pages.some((p) => p.path === path) ? back : "/";
}

/** The "Apply & restart" form the pages whose changes wait for a restart put under their forms. */
export function restartButton(csrf: string, back: string): Html {
  return html`<form method="post" action="${RESTART_PATH}" class="restart"><input type="hidden" name="csrf" value="${csrf}"><input type="hidden" name="back" value="${localBack(back)}">
<button>Apply &amp; restart</button> <small>restarts the daemon so it uses what is saved</small></form>`;
}

/**
 * Apply & restart: a POST starts the restart (deps.restart: systemd's restart, or a detached `fermix restart`) and
 * leads to the waiting page, which refreshes itself until another daemon answers; the server then redirects to
 * the page the restart was asked from. The browser stays logged in (the sessions are on disk, hashed).
 */
export const restartPage = definePage({
  path: RESTART_PATH,
  title: "Restart",
  // The waiting page's poller (restart-wait-script.ts): it rides out the moment the daemon is down.
  scriptHashes: [RESTART_WAIT_SCRIPT_HASH],
  async render(deps, ctx) {
    const control = deps.restart;
    if (!control) {
      return html`<p>This page cannot restart the daemon here; run <code>fermix restart</code> in a terminal.</p>`;
    }
    const from = ctx.query.get("from");
    const back = localBack(ctx.query.get("back"));
    if (from === String(control.pid)) {
      waitingAsked(control);
      return waiting(control.pid, back);
    }
    if (from) return html`<p class="ok">The daemon is back (pid ${control.pid}). <a href="${back}">Continue</a></p>`;
    return html`${noticeOf(ctx)}<p>The daemon (pid ${control.pid}) reads config.toml when it starts: provider,
personalization and channel changes apply after a restart. Running turns are cut short.</p>
${restartButton(ctx.csrf, back)}`;
  },
  async submit(form, deps) {
    const control = deps.restart;
    if (!control) return { ok: false, error: "this page cannot restart the daemon; run fermix restart" };
    armRestart(control);
    return { ok: true, notice: "Restarting…", redirect: waitUrl(control.pid, form.get("back") ?? "/") };
  },
});

function waiting(pid: number, back: string): Html {
  const again = waitUrl(pid, back);
  // With script, the poller: a refused fetch while the daemon is down is retried, where a meta refresh landing in that
  // moment would leave the browser on its "cannot be reached" page. Without script, the meta refresh.
  return html`<script>${{ html: RESTART_WAIT_SCRIPT }}</script><noscript><meta http-equiv="refresh" content="${WAIT_REFRESH_S};url=${again}"></noscript>
<p class="warn" role="status">Restarting… waiting for the daemon to come back (this page checks every ${WAIT_REFRESH_S} s).</p>
<p>If the browser shows that the page cannot be reached, the daemon is between stopping and starting:
<a href="${again}">check again</a>. Still down after a minute? Run <code>fermix status</code> and see
<code>fermix logs</code>.</p>`;
}

/**
 * When the restart really starts. Not in the POST: the daemon would go down before the browser had loaded the
 * waiting page, and a browser whose navigation lands in that gap shows its own error page, which never asks again.
 * So the POST arms it, and the waiting page's second ask (its script's first poll, or a meta refresh: the page is
 * loaded by then) fires it; a client that never comes back (a script) gets it after FALLBACK_MS anyway.
 */
const FALLBACK_MS = 5_000;
const armed = new WeakMap<RestartControl, { timer: ReturnType<typeof setTimeout>; asks: number }>();

function armRestart(control: RestartControl): void {
  if (armed.has(control)) return;
  const timer = setTimeout(() => fire(control), FALLBACK_MS);
  armed.set(control, { timer, asks: 0 });
}

function waitingAsked(control: RestartControl): void {
  const state = armed.get(control);
  if (!state) return;
  state.asks += 1;
  // The first ask is the page loading; the next one comes from the loaded page. The restart starts once this answer
  // is on its way (the response is written when the render returns).
  if (state.asks >= 2) setTimeout(() => fire(control), 0);
}

function fire(control: RestartControl): void {
  const state = armed.get(control);
  if (!state) return;
  clearTimeout(state.timer);
  armed.delete(control);
  void control.restart();
}
