import { existsSync, readFileSync } from "node:fs";
import type { Env } from "../config/env.ts";
import { parseConfig } from "../config/load.ts";
import type { FermixPaths } from "../config/paths.ts";
import { envSecret } from "../config/secrets.ts";
import { FermixError } from "../error.ts";
import { type AuthStore, createAuthStore } from "./auth-file.ts";
import { applyLoginToConfig, applyLogoutToConfig } from "./config-mode.ts";
import { browserLogin, claudeCodeImport, type LoginResult, setupTokenLogin } from "./login.ts";
import { type ProfileId, profileFor, profileSpec } from "./profiles.ts";
import { describe, type ProfileState, profileStates, relative } from "./status.ts";

/**
 * `fermix auth login|status|logout`, apart from the terminal: each returns the lines to print. Tokens never
 * reach a line; the daemon is reached only through the functions handed in.
 */
export const RESTART_SENTENCE = "Restart the daemon to pick up new credentials: `fermix restart`.";

export type AuthCommandDeps = {
  env: Env;
  paths: FermixPaths;
  now?: () => number;
  fetch?: typeof fetch;
  /** True when a daemon answers on the socket. */
  daemonRuns: () => Promise<boolean>;
  /** Asks the running daemon to drop what it holds of the profile (never called when none runs). */
  forget: (profile: ProfileId) => Promise<void>;
  /** stderr: the authorize URL goes here, so stdout stays the result. */
  note: (line: string) => void;
  openBrowser?: (url: string) => void;
  /** The setup token from stdin or a hidden prompt. */
  readSetupToken: () => Promise<string>;
};

export type LoginOptions = {
  provider?: string;
  browser: boolean;
  port?: number;
  timeoutSeconds?: number;
  setupToken?: boolean;
  setupTokenValue?: string;
  importClaudeCode?: boolean;
};

const usage = (message: string) => new FermixError("usage", message);

export async function authLogin(opts: LoginOptions, deps: AuthCommandDeps): Promise<string[]> {
  const profile = profileFor(opts.provider ?? "codex");
  const store = createAuthStore(deps.paths.auth, { now: deps.now });
  const spec = profileSpec(profile, deps.env);
  if (profile !== "anthropic_oauth" && (opts.setupToken || opts.importClaudeCode)) {
    throw usage("--setup-token and --import-claude-code are for --provider anthropic");
  }
  if (profile === "anthropic_oauth" && (opts.port !== undefined || opts.timeoutSeconds !== undefined)) {
    throw usage("--port and --timeout are for the browser sign-ins (--provider codex or xai)");
  }
  // A config.toml that does not load is the owner's to fix first: found now, before a token is stored for nothing.
  if (existsSync(deps.paths.config)) parseConfig(readFileSync(deps.paths.config, "utf8"), deps.paths.config);
  let result: LoginResult;
  if (profile === "anthropic_oauth") {
    result = await anthropicLogin(opts, store, deps);
  } else {
    result = await browserLogin({
      profile,
      store,
      env: deps.env,
      port: opts.port,
      timeoutMs: opts.timeoutSeconds === undefined ? undefined : opts.timeoutSeconds * 1000,
      printUrl: (url) => deps.note(`Open this URL to sign in to ${spec.label}:\n${url}`),
      openBrowser: opts.browser ? deps.openBrowser : undefined,
      fetch: deps.fetch,
      now: deps.now,
    });
  }
  const lines = [`Signed in to ${spec.label}${result.email ? ` as ${result.email}` : ""} (${result.authMode}).`];
  const edit = applyLoginToConfig(deps.paths.config, profile);
  if (profile === "openai_codex") {
    if (edit.changed) lines.push(`Added [${edit.table}] to ${edit.file}; it is a fallback unless you make it primary.`);
  } else {
    lines.push(
      edit.changed
        ? `Set auth_mode = "oauth" in [${edit.table}] (${edit.file}).`
        : `[${edit.table}] already has auth_mode = "oauth".`,
    );
  }
  if (await deps.daemonRuns()) lines.push(RESTART_SENTENCE);
  return lines;
}

async function anthropicLogin(opts: LoginOptions, store: AuthStore, deps: AuthCommandDeps): Promise<LoginResult> {
  if (opts.setupToken && opts.importClaudeCode) throw usage("give --setup-token or --import-claude-code, not both");
  if (opts.setupToken) {
    return setupTokenLogin(store, opts.setupTokenValue ?? (await deps.readSetupToken()), deps.now);
  }
  if (opts.importClaudeCode) return claudeCodeImport(store, deps.env, deps.now);
  const fromEnv = envSecret(deps.env, "CLAUDE_CODE_OAUTH_TOKEN");
  if (fromEnv) return setupTokenLogin(store, fromEnv, deps.now);
  throw usage(
    "signing in to Claude needs --setup-token (the token `claude setup-token` prints, on stdin), --import-claude-code (Claude Code's own login), or CLAUDE_CODE_OAUTH_TOKEN in the environment",
  );
}

export type StatusAnswer = { file: string; profiles: ProfileState[] };

export function authStatus(provider: string | undefined, deps: Pick<AuthCommandDeps, "paths" | "now">): StatusAnswer {
  const store = createAuthStore(deps.paths.auth);
  const only = provider === undefined ? undefined : profileFor(provider);
  return { file: store.file, profiles: profileStates(store, (deps.now ?? Date.now)(), only) };
}

export function statusLines(answer: StatusAnswer, now: number): string[] {
  const lines: string[] = [];
  for (const p of answer.profiles) {
    if (p.state === "not_logged_in") {
      lines.push(`${p.profile}: not logged in (no ${p.profile} entry in ${answer.file})`);
      continue;
    }
    lines.push(`${p.profile}:`, `  provider: ${p.provider}`, `  auth_mode: ${p.auth_mode}`);
    lines.push(`  expires_at: ${p.expires_at ? `${p.expires_at} (${relative(p.expires_at, now)})` : "never"}`);
    if (p.last_refresh) lines.push(`  last_refresh: ${p.last_refresh}`);
    const fix = p.state === "logged_in" ? "" : ` — run \`fermix auth login --provider ${p.provider}\``;
    lines.push(`  status: ${describe(p, now)}${fix}`);
  }
  return lines;
}

export async function authLogout(provider: string | undefined, deps: AuthCommandDeps): Promise<string[]> {
  const profile = profileFor(provider ?? "codex");
  const spec = profileSpec(profile);
  const store = createAuthStore(deps.paths.auth, { now: deps.now });
  const had = await store.exclusive(profile, async () => {
    const existed = store.read(profile) !== undefined;
    if (existed) await store.update(profile, () => undefined);
    return existed;
  });
  const lines = [
    had
      ? `Logged out of ${spec.label} (removed ${profile} from ${store.file}).`
      : `${spec.label} was not logged in (no ${profile} entry in ${store.file}).`,
  ];
  const edit = applyLogoutToConfig(deps.paths.config, profile);
  if (edit.changed) lines.push(`Set auth_mode = "api_key" in [${edit.table}] (${edit.file}).`);
  if (await deps.daemonRuns()) {
    await deps.forget(profile);
    lines.push(RESTART_SENTENCE);
  }
  return lines;
}
