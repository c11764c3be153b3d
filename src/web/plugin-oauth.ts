import { defineError } from "../error.ts";
import { type AuthCliDeps, authLogin } from "../plugins/oauth/cli.ts";
import type { Landing } from "../plugins/oauth/login.ts";
import { type Html, html } from "./html.ts";

/**
 * "Connect" on the Plugins page: the CLI's `plugins auth login NAME` (same PKCE login, loopback redirect
 * listener, timeout, token store and enable-on-connect), except that the authorize URL is handed to the page,
 * which 303s the browser there, and the redirect lands on a page linking back to the setup page.
 *
 * One login per provider at a time: a second Connect for the same plugin while one is pending gets the same
 * authorize URL back (same state, same listener) rather than a second listener; a Connect for another plugin of
 * the same provider is refused until the first ends (connected, refused, or timed out — its listener then closed).
 */
export const OAuthLoginBusy = defineError<{ provider: string; plugin: string }>("oauth_login_busy");

export type OAuthConnectorOptions = {
  /** The setup page's port: the landing page links to http://127.0.0.1:<port>/setup/plugins. */
  webPort: number;
  /** The CLI login's deps as of now (config.toml read afresh), without the browser hooks this module supplies. */
  deps(): Promise<Omit<AuthCliDeps, "printUrl" | "openBrowser" | "landing">>;
  /** Seconds to wait for the redirect; absent: the CLI's default. */
  timeoutSeconds?: number;
  /** After the token is stored and the plugin enabled: tell the daemon to reload its plugins. */
  afterConnect?: () => Promise<unknown>;
  log?: { info(msg: string): void; error(msg: string): void };
};

export type OAuthConnector = {
  /** Starts (or rejoins) the plugin's login; resolves with the provider's authorize URL for the browser. */
  connect(name: string): Promise<string>;
  /** The plugin whose login is pending for `provider`, if any. */
  pending(provider: string): string | undefined;
};

export function createOAuthConnector(opts: OAuthConnectorOptions): OAuthConnector {
  const pending = new Map<string, { plugin: string; url: Promise<string> }>();
  const back = `http://127.0.0.1:${opts.webPort}/setup/plugins`;

  async function connect(name: string): Promise<string> {
    const deps = await opts.deps();
    const provider = deps.manifestFor(name)?.auth.provider ?? `plugin:${name}`;
    const current = pending.get(provider);
    if (current) {
      if (current.plugin === name) return current.url;
      throw OAuthLoginBusy(
        `a ${provider} sign-in for ${current.plugin} is under way; finish it in the browser or wait for it to time out`,
        { provider, plugin: current.plugin },
      );
    }
    let shown!: (url: string) => void;
    const url = new Promise<string>((resolve) => {
      shown = resolve;
    });
    // Settles after the token is stored, the plugin enabled and the daemon told: only then does the landing page
    // send the user back, so the card they return to already shows the new state.
    let finish!: { resolve: () => void; reject: (err: unknown) => void };
    const finished = new Promise<void>((resolve, reject) => {
      finish = { resolve, reject };
    });
    finished.catch(() => {});
    const landing: Landing = async (ended) => {
      try {
        await ended;
        await finished;
        return landingPage(
          200,
          html`Connected — ${name} is connected. <a href="${back}">Return to the setup page</a>.`,
        );
      } catch (err) {
        const why = (err as Error)?.message ?? String(err);
        return landingPage(
          400,
          html`${name} was not connected: ${why} <a href="${back}">Return to the setup page</a>.`,
        );
      }
    };
    const run = authLogin(
      name,
      { noBrowser: true, timeoutSeconds: opts.timeoutSeconds },
      { ...deps, printUrl: (u) => shown(u), landing },
    );
    const slot = {
      plugin: name,
      url: Promise.race([url, run.then(() => Promise.reject(new Error(`${name}'s sign-in ended before it began`)))]),
    };
    pending.set(provider, slot);
    run
      .finally(() => {
        if (pending.get(provider) === slot) pending.delete(provider);
      })
      .then(async () => {
        opts.log?.info(`web: ${name} connected over OAuth`);
        await opts.afterConnect?.().catch(() => undefined);
        finish.resolve();
      })
      .catch((err) => {
        opts.log?.error(`web: ${name}'s OAuth sign-in ended: ${(err as Error)?.message ?? String(err)}`);
        finish.reject(err);
      });
    return slot.url;
  }

  return {
    connect,
    pending: (provider) => pending.get(provider)?.plugin,
  };
}

/**
 * The page the provider's redirect lands on (on the login's own loopback port). A link, not a redirect: the
 * browser arrives here through the provider's cross-site redirect, and a SameSite=Strict session cookie is not
 * sent on a navigation that chain started, whereas a click on this page is same-site. No referrer: this URL
 * carries the authorization code.
 */
function landingPage(status: number, body: Html): Response {
  const text = `<!doctype html>${html`<html lang="en"><head><meta charset="utf-8"><title>fermix</title></head><body><p>${body}</p></body></html>`.html}`;
  return new Response(text, {
    status,
    headers: {
      "content-type": "text/html; charset=utf-8",
      "content-security-policy": "default-src 'none'; form-action 'none'; frame-ancestors 'none'; base-uri 'none'",
      "x-frame-options": "DENY",
      "x-content-type-options": "nosniff",
      "referrer-policy": "no-referrer",
      "cache-control": "no-store",
    },
  });
}
