import { randomBytes } from "node:crypto";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import type { Env } from "../config/env.ts";
import { defineError, FermixError } from "../error.ts";
import type { AuthStore, StoredProfile } from "./auth-file.ts";
import { listenForCallback } from "./loopback.ts";
import { authorizeUrl, awaitRedirect, newPkceAttempt } from "./pkce.ts";
import { type ProfileId, profileSpec } from "./profiles.ts";
import { accountOf, exchangeCode, type TokenAnswer } from "./token-endpoint.ts";

/**
 * Signing in to a chat provider. Codex and Grok: the authorization-code flow with PKCE (S256) and a loopback
 * redirect on the registered client's port. Claude: a setup token (`claude setup-token`), a one-time import
 * of Claude Code's own login, or CLAUDE_CODE_OAUTH_TOKEN — never imported unasked. Whatever the source, the
 * tokens go to auth.json and nowhere else; what is printed is the authorize URL and the account's email.
 */
export const AuthTimeout = defineError<{ profile: string; seconds: number }>("auth_timeout");
export const ClaudeCodeImportFailed = defineError<{ file: string }>("claude_code_import_failed");

export type LoginResult = { profile: ProfileId; authMode: string; email?: string; expiresAt?: number };

export type BrowserLoginInput = {
  profile: "openai_codex" | "xai_oauth";
  store: AuthStore;
  env: Env;
  port?: number;
  timeoutMs?: number;
  printUrl: (url: string) => void;
  /** Absent: --no-browser. */
  openBrowser?: (url: string) => void;
  fetch?: typeof fetch;
  now?: () => number;
};

const DEFAULT_TIMEOUT_MS = 300_000;

export async function browserLogin(input: BrowserLoginInput): Promise<LoginResult> {
  const spec = profileSpec(input.profile, input.env);
  const authorize = spec.authorize!;
  const now = input.now ?? Date.now;
  return input.store.exclusive(input.profile, async () => {
    const attempt = newPkceAttempt();
    const callback = listenForCallback({
      profile: spec.id,
      label: spec.label,
      state: attempt.state,
      host: authorize.redirectHost,
      port: input.port ?? authorize.redirectPort,
      path: authorize.redirectPath,
    });
    try {
      const code = await awaitRedirect({
        url: authorizeUrl(authorize.url, attempt, {
          clientId: spec.clientId,
          redirectUri: callback.redirectUri,
          extra: {
            scope: authorize.scopes,
            ...authorize.extra,
            ...(authorize.nonce ? { nonce: randomBytes(16).toString("base64url") } : {}),
          },
        }),
        code: callback.code,
        timeoutMs: input.timeoutMs ?? DEFAULT_TIMEOUT_MS,
        timedOut: (seconds) =>
          AuthTimeout(
            `no redirect from ${spec.label} arrived within ${seconds}s; run the login again (--timeout SECONDS gives more time)`,
            { profile: spec.id, seconds },
          ),
        printUrl: input.printUrl,
        openBrowser: input.openBrowser,
      });
      const answer = await exchangeCode(
        spec,
        { code, redirectUri: callback.redirectUri, verifier: attempt.verifier, challenge: attempt.challenge },
        { fetch: input.fetch, now },
      );
      return save(input.store, input.profile, entryFrom(answer, spec.storedMode, spec.clientId, now));
    } finally {
      callback.close();
    }
  });
}

/** A Claude setup token (or CLAUDE_CODE_OAUTH_TOKEN): long-lived, no refresh token, no expiry. */
export async function setupTokenLogin(store: AuthStore, token: string, now: () => number = Date.now) {
  const value = token.trim();
  if (!value || /\s/.test(value)) {
    throw new FermixError(
      "usage",
      "the setup token is empty or has spaces in it; give the single line `claude setup-token` printed",
    );
  }
  return store.exclusive("anthropic_oauth", () =>
    save(store, "anthropic_oauth", {
      auth_mode: "setup_token",
      tokens: { access_token: value },
      last_refresh: new Date(now()).toISOString(),
      provider: "anthropic",
      status: "ready",
    }),
  );
}

/** Claude Code's login from `$HOME/.claude/.credentials.json` (key claudeAiOauth), copied once. */
export async function claudeCodeImport(store: AuthStore, env: Env, now: () => number = Date.now) {
  const home = env.HOME;
  const file = join(home || "~", ".claude", ".credentials.json");
  let creds: { accessToken?: unknown; refreshToken?: unknown; expiresAt?: unknown } | undefined;
  try {
    creds = (JSON.parse(readFileSync(file, "utf8")) as { claudeAiOauth?: typeof creds }).claudeAiOauth;
  } catch (err) {
    const why = (err as NodeJS.ErrnoException).code === "ENOENT" ? "does not exist" : "could not be read as JSON";
    throw ClaudeCodeImportFailed(`${file} ${why}; sign in to Claude Code first (claude login), or use --setup-token`, {
      file,
    });
  }
  if (!creds || typeof creds.accessToken !== "string" || !creds.accessToken) {
    throw ClaudeCodeImportFailed(`${file} holds no Claude Code login (claudeAiOauth); sign in with claude first`, {
      file,
    });
  }
  const refreshToken = typeof creds.refreshToken === "string" && creds.refreshToken ? creds.refreshToken : undefined;
  const expiresAt = typeof creds.expiresAt === "number" ? creds.expiresAt : undefined;
  if (expiresAt !== undefined && expiresAt - now() < 60_000 && !refreshToken) {
    throw ClaudeCodeImportFailed(
      `the Claude Code login in ${file} has expired and has no refresh token; run claude once to renew it, then import again`,
      { file },
    );
  }
  const entry: StoredProfile = {
    auth_mode: "claude_code_import",
    tokens: { access_token: creds.accessToken, ...(refreshToken ? { refresh_token: refreshToken } : {}) },
    last_refresh: new Date(now()).toISOString(),
    provider: "anthropic",
    status: "ready",
  };
  if (expiresAt !== undefined) entry.expires_at = new Date(expiresAt).toISOString();
  return store.exclusive("anthropic_oauth", () => save(store, "anthropic_oauth", entry));
}

function entryFrom(answer: TokenAnswer, mode: string, clientId: string, now: () => number): StoredProfile {
  const entry: StoredProfile = {
    auth_mode: mode,
    tokens: {
      access_token: answer.access_token,
      ...(answer.refresh_token ? { refresh_token: answer.refresh_token } : {}),
    },
    last_refresh: new Date(now()).toISOString(),
    client_id: clientId,
    // A new sign-in clears a "Reconnect needed".
    status: "ready",
  };
  if (answer.expiresAt) entry.expires_at = new Date(answer.expiresAt).toISOString();
  const account = accountOf(answer);
  if (account) entry.account = account;
  return entry;
}

async function save(store: AuthStore, profile: ProfileId, entry: StoredProfile): Promise<LoginResult> {
  const spec = profileSpec(profile);
  await store.update(profile, () => ({ ...entry, provider: entry.provider ?? spec.provider }));
  const expires = entry.expires_at ? Date.parse(entry.expires_at) : undefined;
  return { profile, authMode: entry.auth_mode, email: entry.account?.email, expiresAt: expires };
}
