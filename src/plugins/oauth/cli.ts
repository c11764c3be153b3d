import type { Config } from "../../config/schema.ts";
import { oauthClientSecretSlot } from "../../config/secret-slots.ts";
import type { SecretRef } from "../../config/sections/secret-ref.ts";
import { defineError } from "../../error.ts";
import type { Log } from "../../observability/log.ts";
import type { CliResult } from "../settings/cli.ts";
import { UnknownPlugin } from "../settings/cli.ts";
import { enablePlugin } from "../settings/plugin-config.ts";
import { type Landing, login, logout, type OAuthClient, refresh } from "./login.ts";
import type { OAuthEndpoints } from "./providers.ts";
import type { TokenStore } from "./token-store.ts";

/**
 * The bodies of `fermix plugins auth login|reauthorize|refresh|logout NAME`. Like the settings commands,
 * each returns text, a `--json` value and stderr notes for the command file to print. None of them ever
 * carries a token: results report the account, scopes and expiry only.
 */
export const OAuthClientMissing = defineError<{ plugin: string; provider: string }>("needs_client_config");
export const NotAnOAuthPlugin = defineError<{ plugin: string; auth: string }>("invalid_argument");
export const InvalidAuthOption = defineError<{ option: string }>("invalid_argument");

export type AuthManifest = {
  auth: { type: "none" | "oauth2" | "api_key"; provider?: string; scopes?: readonly string[] };
};

export type AuthCliDeps = {
  configFile: string;
  config: Config;
  store: TokenStore;
  manifestFor(name: string): AuthManifest | undefined;
  resolveSecret(ref: SecretRef, slot: string): string;
  /** Where the authorize URL goes: stderr, so `--json` output stays parseable. */
  printUrl(url: string): void;
  /** The system browser launcher; absent means the user opens the URL (as with --no-browser). */
  openBrowser?: (url: string) => void | Promise<void>;
  /** How the browser's redirect is answered (the web setup page links back to itself); absent: plain lines. */
  landing?: Landing;
  fetch?: typeof fetch;
  /** Tests point a provider at a fake server; production passes nothing. */
  endpoints?: (provider: string) => Partial<OAuthEndpoints> | undefined;
  /** Who signed in, when the token response did not say (the plugin's health check; account-lookup.ts). */
  accountOf?: (plugin: string, accessToken: string) => Promise<string | undefined>;
  now?: () => Date;
  log?: Log;
};

export type AuthLoginOptions = { noBrowser?: boolean; port?: number; timeoutSeconds?: number };

export function authLogin(name: string, opts: AuthLoginOptions, deps: AuthCliDeps): Promise<CliResult> {
  return connect(name, opts, deps, "login");
}

/** A fresh login over an invalidated (or merely unwanted) token; the old one is replaced on success only. */
export function authReauthorize(name: string, opts: AuthLoginOptions, deps: AuthCliDeps): Promise<CliResult> {
  return connect(name, opts, deps, "reauthorize");
}

export async function authRefresh(name: string, deps: AuthCliDeps): Promise<CliResult> {
  const { provider } = oauthPlugin(name, deps);
  const token = await refresh(name, { ...client(name, provider, deps), ...common(provider, deps) });
  deps.log?.info("plugin token refreshed", { plugin: name, provider });
  return {
    text: row(name, "connected", token.account, token.expires_at),
    json: {
      plugin: name,
      auth: "oauth2",
      provider,
      state: "connected",
      account: token.account ?? null,
      scopes: token.scopes,
      expires_at: token.expires_at ?? null,
    },
  };
}

export async function authLogout(name: string, deps: AuthCliDeps): Promise<CliResult> {
  // A plugin whose manifest is gone can still have its token removed; otherwise a typo gets named.
  if (!deps.store.get(name)) oauthPlugin(name, deps);
  const removed = await logout(name, deps.store);
  deps.log?.info("plugin logged out", { plugin: name, removed });
  const notes = removed ? [] : [`${name} was not connected`];
  return {
    text: row(name, "not_connected"),
    json: { plugin: name, auth: "oauth2", state: "not_connected", changed: removed },
    notes,
  };
}

async function connect(
  name: string,
  opts: AuthLoginOptions,
  deps: AuthCliDeps,
  action: "login" | "reauthorize",
): Promise<CliResult> {
  const { provider, scopes } = oauthPlugin(name, deps);
  const creds = client(name, provider, deps);
  checkOptions(opts);
  const result = await login({
    plugin: name,
    provider,
    scopes,
    ...creds,
    ...common(provider, deps),
    port: opts.port,
    timeoutMs: opts.timeoutSeconds === undefined ? undefined : opts.timeoutSeconds * 1000,
    openBrowser: opts.noBrowser ? undefined : deps.openBrowser,
    printUrl: deps.printUrl,
    landing: deps.landing,
  });
  const account = result.account ?? (await rememberAccount(name, deps));
  // Logging in is how a user says they want the plugin (the spec): enable it, but only once it is connected.
  const { changed } = enablePlugin(deps.configFile, name);
  deps.log?.info("plugin connected", { plugin: name, provider, action });
  const notes = changed ? [`enabled ${name}`] : [];
  return {
    text: row(name, "connected", account),
    json: {
      plugin: name,
      auth: "oauth2",
      provider,
      state: "connected",
      account: account ?? null,
      scopes: result.scopes,
      enabled: changed,
    },
    notes,
  };
}

/** Asks the plugin's health check who signed in and files the answer with the token, for `plugins list`. */
async function rememberAccount(name: string, deps: AuthCliDeps): Promise<string | undefined> {
  const token = deps.store.get(name);
  if (!token || !deps.accountOf) return undefined;
  const account = await deps.accountOf(name, token.access_token).catch(() => undefined);
  if (account) await deps.store.put(name, { ...token, account });
  return account;
}

function oauthPlugin(name: string, deps: AuthCliDeps): { provider: string; scopes: readonly string[] } {
  const manifest = deps.manifestFor(name);
  if (!manifest) throw UnknownPlugin(`no plugin named ${name}; see fermix plugins catalog`, { name, known: [] });
  const auth = manifest.auth;
  if (auth.type !== "oauth2" || !auth.provider) {
    const fix = auth.type === "api_key" ? `set its key with fermix plugins auth set ${name}` : "it needs no credential";
    throw NotAnOAuthPlugin(`${name} does not connect over OAuth; ${fix}`, { plugin: name, auth: auth.type });
  }
  return { provider: auth.provider, scopes: auth.scopes ?? [] };
}

function client(name: string, provider: string, deps: AuthCliDeps): OAuthClient {
  const block = deps.config.fermix_core?.oauth?.[provider];
  if (!block?.client_id || block.client_secret === undefined) {
    throw OAuthClientMissing(
      `${name} needs an OAuth client: set client_id and client_secret under [fermix_core.oauth.${provider}] in config.toml`,
      { plugin: name, provider },
    );
  }
  return {
    clientId: block.client_id,
    clientSecret: deps.resolveSecret(block.client_secret, oauthClientSecretSlot(provider)),
  };
}

function common(provider: string, deps: AuthCliDeps) {
  return { store: deps.store, fetch: deps.fetch, endpoints: deps.endpoints?.(provider), now: deps.now };
}

function checkOptions(opts: AuthLoginOptions): void {
  if (opts.port !== undefined && !(Number.isInteger(opts.port) && opts.port >= 0 && opts.port <= 65535)) {
    throw InvalidAuthOption(`--port must be a port number (0-65535), not ${opts.port}`, { option: "port" });
  }
  if (opts.timeoutSeconds !== undefined && !(opts.timeoutSeconds > 0)) {
    throw InvalidAuthOption(`--timeout must be a number of seconds above 0, not ${opts.timeoutSeconds}`, {
      option: "timeout",
    });
  }
}

function row(name: string, state: string, account?: string, expiresAt?: string): string {
  return `${[name, "oauth2", state, account ?? "", expiresAt ?? ""].join("\t").replace(/\t+$/, "")}\n`;
}
