import { authorizeUrl, awaitRedirect, newPkceAttempt } from "../../auth/pkce.ts";
import { defineError } from "../../error.ts";
import { type Landing, startRedirectServer } from "./_loopback.ts";
import { type OAuthClient, OAuthTokenRejected, requestToken, type TokenResponse } from "./_token-request.ts";
import { type OAuthEndpoints, oauthProvider } from "./providers.ts";
import type { StoredToken, TokenStore } from "./token-store.ts";

/**
 * Connecting a plugin: the authorization-code flow with PKCE (RFC 7636, S256) and a loopback redirect
 * (RFC 8252), then refresh and logout. The only things printed are the authorize URL and what the caller
 * prints of the result; tokens go from the token endpoint to the store and nowhere else.
 */
export const OAuthTimeout = defineError<{ provider: string; seconds: number }>("oauth_timeout");
export const OAuthNotConnected = defineError<{ plugin: string }>("oauth_not_connected");
export const OAuthReauthorizationRequired = defineError<{ plugin: string }>("reauthorization_required");

export type { OAuthClient } from "./_token-request.ts";

export type LoginInput = OAuthClient & {
  plugin: string;
  provider: string;
  scopes: readonly string[];
  store: TokenStore;
  /** The loopback port; 0 (any free one) unless the provider's registered redirect URI pins it. */
  port?: number;
  timeoutMs?: number;
  /** Absent: the user opens the printed URL (--no-browser). */
  openBrowser?: (url: string) => void | Promise<void>;
  printUrl: (url: string) => void;
  /** How the redirect is answered; absent: plain "close this tab" lines (the CLI). */
  landing?: Landing;
  fetch?: typeof fetch;
  endpoints?: Partial<OAuthEndpoints>;
  now?: () => Date;
};
export type { Landing } from "./_loopback.ts";
export type LoginResult = { account?: string; scopes: string[] };

export type RefreshDeps = OAuthClient & {
  store: TokenStore;
  fetch?: typeof fetch;
  endpoints?: Partial<OAuthEndpoints>;
  now?: () => Date;
};

const DEFAULT_TIMEOUT_MS = 5 * 60 * 1000;

export async function login(input: LoginInput): Promise<LoginResult> {
  const provider = oauthProvider(input.provider, input.endpoints);
  const attempt = newPkceAttempt();
  const server = startRedirectServer({
    provider: provider.name,
    state: attempt.state,
    port: input.port,
    landing: input.landing,
  });
  const timeoutMs = input.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  try {
    const code = await awaitRedirect({
      url: authorizeUrl(provider.authorizeUrl, attempt, {
        clientId: input.clientId,
        redirectUri: server.redirectUri,
        extra: { ...provider.authorizeParams, ...(input.scopes.length ? { scope: input.scopes.join(" ") } : {}) },
      }),
      code: server.code,
      timeoutMs,
      timedOut: (seconds) =>
        OAuthTimeout(
          `no redirect from ${provider.name} arrived within ${seconds}s; run the login again (--timeout S gives more time)`,
          { provider: provider.name, seconds },
        ),
      printUrl: input.printUrl,
      openBrowser: input.openBrowser,
    });
    const response = await requestToken(
      provider,
      { grant_type: "authorization_code", code, redirect_uri: server.redirectUri, code_verifier: attempt.verifier },
      input,
      input.fetch ?? fetch,
    );
    const token = stored(provider.name, response, undefined, input.scopes, (input.now ?? (() => new Date()))());
    await input.store.put(input.plugin, token);
    server.end();
    return { account: token.account, scopes: token.scopes };
  } catch (err) {
    server.end(err);
    throw err;
  } finally {
    server.close();
  }
}

/** Trades the refresh token for a new access token. A refused refresh token marks the plugin invalidated. */
export async function refresh(plugin: string, deps: RefreshDeps): Promise<StoredToken> {
  const seen = refreshable(plugin, deps.store.get(plugin));
  return deps.store.exclusive(plugin, async () => {
    const current = refreshable(plugin, deps.store.get(plugin));
    // Another process refreshed while we waited for the lock: its token is the one to use.
    if (current.access_token !== seen.access_token) return current;
    const provider = oauthProvider(current.provider, deps.endpoints);
    let response: TokenResponse;
    try {
      response = await requestToken(
        provider,
        { grant_type: "refresh_token", refresh_token: current.refresh_token },
        deps,
        deps.fetch ?? fetch,
      );
    } catch (err) {
      if (!OAuthTokenRejected.is(err) || err.data.error !== "invalid_grant") throw err;
      await deps.store.markInvalidated(plugin);
      throw OAuthReauthorizationRequired(
        `${plugin} needs reconnection. Run fermix plugins auth reauthorize ${plugin}.`,
        { plugin },
        { cause: err },
      );
    }
    const token = stored(provider.name, response, current, current.scopes, (deps.now ?? (() => new Date()))());
    await deps.store.put(plugin, token);
    return token;
  });
}

function refreshable(plugin: string, token: StoredToken | undefined): StoredToken & { refresh_token: string } {
  if (!token) {
    throw OAuthNotConnected(`${plugin} is not connected. Run fermix plugins auth login ${plugin}.`, { plugin });
  }
  if (!token.refresh_token) {
    throw OAuthReauthorizationRequired(
      `${plugin} has no refresh token (${token.provider} did not issue one). Run fermix plugins auth reauthorize ${plugin}.`,
      { plugin },
    );
  }
  return token as StoredToken & { refresh_token: string };
}

/** Forgets the plugin's token (the provider-side grant stays until revoked there). */
export function logout(plugin: string, store: TokenStore): Promise<boolean> {
  return store.remove(plugin);
}

function stored(
  provider: string,
  response: TokenResponse,
  previous: StoredToken | undefined,
  requested: readonly string[],
  now: Date,
): StoredToken {
  const token: StoredToken = {
    provider,
    access_token: response.access_token,
    scopes: response.scopes ?? [...requested],
    obtained_at: now.toISOString(),
  };
  // Google answers a refresh without a new refresh token: the old one stays good.
  const refreshToken = response.refresh_token ?? previous?.refresh_token;
  if (refreshToken) token.refresh_token = refreshToken;
  if (response.expires_in) token.expires_at = new Date(now.getTime() + response.expires_in * 1000).toISOString();
  const account = response.account ?? previous?.account;
  if (account) token.account = account;
  return token;
}
