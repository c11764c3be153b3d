import { type Env, processEnv } from "../config/env.ts";
import type { FermixPaths } from "../config/paths.ts";
import { defineError } from "../error.ts";
import type { Log } from "../observability/log.ts";
import { createAuthStore, type StoredProfile } from "./auth-file.ts";
import { loginHint, type ProfileId, profileSpec } from "./profiles.ts";
import { accountOf, refreshGrant, TokenRefused } from "./token-endpoint.ts";

export type { ProfileId } from "./profiles.ts";

/**
 * What a provider wire asks for its bearer token. It re-reads auth.json on every call (a small file; a login,
 * a logout or another process's refresh shows at once, and nothing is held in memory to forget), refreshes
 * 90 s before expiry under the profile lock, and after a 401 refreshes once — unless another process already
 * replaced the token the provider refused.
 */
export type ProfileToken = { accessToken: string; expiresAt?: number; accountId?: string };
export type TokenSource = {
  token(): Promise<ProfileToken>;
  refreshAfterUnauthorized(rejected: string): Promise<ProfileToken>;
};

export const AuthNotLoggedIn = defineError<{ profile: ProfileId }>("auth_not_logged_in");
export const AuthReconnectNeeded = defineError<{ profile: ProfileId; error?: string }>("auth_reconnect_needed");

/** A token this close to its expiry is refreshed first: a turn must not start on one that dies mid-stream. */
export const REFRESH_EARLY_MS = 90_000;

export type TokenSourceDeps = {
  paths: FermixPaths;
  fetch?: typeof fetch;
  now?: () => number;
  log?: Pick<Log, "info" | "warn">;
  /** For FERMIX_TEST_OAUTH_BASE_URL (tests); the process environment when absent. */
  env?: Env;
  /** How long a refresh waits for another process's sign-in or refresh of the profile (10 s). */
  lockWaitMs?: number;
};

export function createProfileTokenSource(deps: TokenSourceDeps, profile: ProfileId): TokenSource {
  const now = deps.now ?? Date.now;
  const store = createAuthStore(deps.paths.auth, { now, profileLockMs: deps.lockWaitMs });
  const spec = () => profileSpec(profile, deps.env ?? processEnv());

  const stored = (): StoredProfile => {
    const entry = store.read(profile);
    if (!entry) throw notLoggedIn(profile, store.file);
    if (entry.status && entry.status !== "ready") throw reconnectNeeded(profile, entry.refused);
    return entry;
  };

  const fresh = (entry: StoredProfile, margin: number) => {
    const expires = expiresAt(entry);
    return expires === undefined || expires - now() > margin;
  };

  async function refresh(seen: string): Promise<ProfileToken> {
    return store.exclusive(profile, async () => {
      const current = stored();
      // Another process refreshed while we waited for the lock (or before we looked): its token is the one.
      if (current.tokens.access_token !== seen && fresh(current, 0)) return tokenOf(current);
      const refreshToken = current.tokens.refresh_token;
      if (!refreshToken) {
        await markRefused(current.tokens.access_token, "no_refresh_token");
        throw reconnectNeeded(profile, "no_refresh_token");
      }
      let answer: Awaited<ReturnType<typeof refreshGrant>>;
      try {
        answer = await refreshGrant(spec(), refreshToken, { fetch: deps.fetch, now });
      } catch (err) {
        // 400/401 is the provider's word on the grant (invalid_grant, a revoked client); a 5xx or no answer
        // is not, and leaves the profile as it was for the next try.
        if (!TokenRefused.is(err) || err.data.status < 400 || err.data.status >= 500) throw err;
        await markRefused(current.tokens.access_token, err.data.error);
        deps.log?.warn(`auth: ${profile} refresh refused (${err.data.error}); reconnect needed`);
        throw reconnectNeeded(profile, err.data.error, err);
      }
      const nowIso = new Date(now()).toISOString();
      const updated = await store.update(profile, (entry) => {
        const base = entry ?? current;
        const next: StoredProfile = {
          ...base,
          tokens: {
            ...base.tokens,
            access_token: answer.access_token,
            refresh_token: answer.refresh_token ?? base.tokens.refresh_token,
          },
          last_refresh: nowIso,
          status: "ready",
        };
        delete next.refused;
        if (answer.expiresAt) next.expires_at = new Date(answer.expiresAt).toISOString();
        else delete next.expires_at;
        const account = accountOf(answer);
        if (account) next.account = { ...base.account, ...account };
        return next;
      });
      deps.log?.info(`auth: ${profile} token refreshed`);
      return tokenOf(updated ?? current);
    });
  }

  /** Marks the profile so status and doctor say "Reconnect needed" — unless a login replaced it meanwhile. */
  async function markRefused(accessToken: string, error: string): Promise<void> {
    await store.update(profile, (entry) =>
      entry && entry.tokens.access_token === accessToken
        ? {
            ...entry,
            status: error.includes("client") ? "client_rejected" : "reauthorization_required",
            refused: error,
          }
        : null,
    );
  }

  return {
    async token() {
      const entry = stored();
      if (fresh(entry, REFRESH_EARLY_MS)) return tokenOf(entry);
      // Nothing to refresh with, but not dead yet: use it while it lasts.
      if (!entry.tokens.refresh_token && fresh(entry, 0)) return tokenOf(entry);
      return refresh(entry.tokens.access_token);
    },
    async refreshAfterUnauthorized(rejected) {
      const entry = stored();
      if (entry.tokens.access_token !== rejected && fresh(entry, 0)) return tokenOf(entry);
      return refresh(rejected);
    },
  };
}

function expiresAt(entry: StoredProfile): number | undefined {
  if (!entry.expires_at) return undefined;
  const ms = Date.parse(entry.expires_at);
  return Number.isNaN(ms) ? undefined : ms;
}

function tokenOf(entry: StoredProfile): ProfileToken {
  const token: ProfileToken = { accessToken: entry.tokens.access_token };
  const expires = expiresAt(entry);
  if (expires !== undefined) token.expiresAt = expires;
  if (entry.account?.id) token.accountId = entry.account.id;
  return token;
}

export function notLoggedIn(profile: ProfileId, file: string) {
  return AuthNotLoggedIn(`not logged in (no ${profile} entry in ${file}); ${loginHint(profile)}`, { profile });
}

export function reconnectNeeded(profile: ProfileId, error?: string, cause?: unknown) {
  const label = profileSpec(profile).label;
  const why = error ? ` (${label} refused the refresh: ${error})` : "";
  return AuthReconnectNeeded(
    `Reconnect needed: your ${label} connection needs to be renewed${why}. Sign in again: ${loginHint(profile)}`,
    { profile, ...(error ? { error } : {}) },
    { cause },
  );
}
