import { createAuthStore } from "../auth/auth-file.ts";
import { applyLoginToConfig, applyLogoutToConfig } from "../auth/config-mode.ts";
import { browserLogin, claudeCodeImport, setupTokenLogin } from "../auth/login.ts";
import { type ProfileId, profileSpec } from "../auth/profiles.ts";
import { describe as describeProfile, profileStates } from "../auth/status.ts";
import type { Env } from "../config/env.ts";
import { loadConfig } from "../config/load.ts";
import type { FermixPaths } from "../config/paths.ts";
import type { ProviderBlock } from "../config/sections/providers.ts";
import type { Log } from "../observability/log.ts";
import { findProvider } from "../providers/descriptors.ts";

/** What the provider pane shows about a subscription sign-in (never a token). */
export type SignInView = {
  /** "oauth" when config.toml uses the sign-in, "api_key" when the key; Codex is always "oauth". */
  mode: "api_key" | "oauth";
  /** One line as `fermix auth status` says it ("logged in as …, token expires in 3 h"). */
  status: string;
  signedIn: boolean;
  reconnect: boolean;
  /** A browser sign-in this daemon started and is waiting on. */
  pending: boolean;
  /** How the last sign-in started here ended, when it failed. */
  lastError?: string;
  /** browser: Codex and Grok (loopback PKCE); token: Claude (setup token or Claude Code import). */
  kind: "browser" | "token";
};

export type ProviderSignInWeb = {
  view(provider: string): Promise<SignInView | undefined>;
  /** Starts a browser sign-in and answers the provider's authorize URL, for the page to send the browser to. */
  connect(provider: string): Promise<string>;
  setupToken(token: string): Promise<string>;
  importClaudeCode(): Promise<string>;
  /** Flips [fermix_core.providers.<p>] auth_mode between the key and the sign-in (anthropic, xai). */
  useMode(provider: string, mode: "api_key" | "oauth"): Promise<string>;
  /** The authorize origins a form post may redirect to (the page's CSP form-action). */
  formTargets(): string[];
};

const PROFILE_OF: Record<string, ProfileId> = {
  openai_codex: "openai_codex",
  anthropic: "anthropic_oauth",
  xai: "xai_oauth",
};
const RESTART = "restart the daemon (Apply & restart) for it to take effect";

/**
 * The provider pane's sign-ins, through `fermix auth login`'s own code (src/auth/): the same PKCE flow on the
 * provider's registered loopback port, the same auth.json, the same auth_mode edit of config.toml. A browser
 * sign-in runs in the daemon: the page answers the authorize URL, the provider redirects to the loopback listener,
 * and the pane shows the result on its next load.
 */
export function createProviderSignIn(deps: {
  env: Env;
  paths: FermixPaths;
  log: Log;
  now?: () => number;
}): ProviderSignInWeb {
  const now = deps.now ?? Date.now;
  const store = () => createAuthStore(deps.paths.auth, { now });
  const pending = new Map<ProfileId, Promise<string>>();
  const lastError = new Map<ProfileId, string>();

  const profileOf = (provider: string): ProfileId => {
    const id = PROFILE_OF[provider];
    if (!id) throw new Error(`${provider} has no subscription sign-in`);
    return id;
  };

  const signedIn = (profile: ProfileId, how: string) => {
    lastError.delete(profile);
    applyLoginToConfig(deps.paths.config, profile);
    const label = profileSpec(profile, deps.env).label;
    return `signed in to ${label} (${how}); ${RESTART}`;
  };

  return {
    async view(provider) {
      const profile = PROFILE_OF[provider];
      if (!profile) return undefined;
      const state = profileStates(store(), now(), profile)[0]!;
      const block = ((await loadConfig(deps.paths.config)).fermix_core?.providers as Record<string, ProviderBlock>)?.[
        provider
      ];
      return {
        mode: provider === "openai_codex" || block?.auth_mode === "oauth" ? "oauth" : "api_key",
        status: describeProfile(state, now()),
        signedIn: state.state === "logged_in",
        reconnect: state.state === "reconnect_needed" || state.state === "expired",
        pending: pending.has(profile),
        lastError: lastError.get(profile),
        kind: profile === "anthropic_oauth" ? "token" : "browser",
      };
    },
    connect(provider) {
      const profile = profileOf(provider);
      if (profile === "anthropic_oauth")
        throw new Error("Claude signs in with a setup token or the Claude Code import");
      const waiting = pending.get(profile);
      if (waiting) return waiting;
      let answerUrl!: (url: string) => void;
      const url = new Promise<string>((resolve) => {
        answerUrl = resolve;
      });
      lastError.delete(profile);
      const login = browserLogin({ profile, store: store(), env: deps.env, printUrl: answerUrl, now }).then(
        () => deps.log.info(signedIn(profile, "browser")),
        (err: Error) => {
          lastError.set(profile, err.message);
          deps.log.warn(`web sign-in to ${provider} failed: ${err.message}`);
        },
      );
      pending.set(profile, url);
      void login.finally(() => pending.delete(profile));
      // The URL, or the sign-in's failure when it ends before printing one (a port in use, a busy lock).
      return Promise.race([
        url,
        login.then(() => {
          throw new Error(lastError.get(profile) ?? "the sign-in ended before it began");
        }),
      ]);
    },
    async setupToken(token) {
      await setupTokenLogin(store(), token, now);
      return signedIn("anthropic_oauth", "setup token");
    },
    async importClaudeCode() {
      await claudeCodeImport(store(), deps.env, now);
      return signedIn("anthropic_oauth", "Claude Code's login");
    },
    async useMode(provider, mode) {
      const profile = profileOf(provider);
      const label = findProvider(provider)?.label ?? provider;
      if (mode === "oauth") {
        if (profileStates(store(), now(), profile)[0]!.state === "not_logged_in") {
          throw new Error(`${label} has no sign-in stored yet: sign in first`);
        }
        applyLoginToConfig(deps.paths.config, profile);
        return `${label} now uses the subscription sign-in; ${RESTART}`;
      }
      applyLogoutToConfig(deps.paths.config, profile);
      return `${label} now uses the API key (the sign-in stays stored); ${RESTART}`;
    },
    formTargets() {
      return (["openai_codex", "xai_oauth"] as const).flatMap((id) => {
        const authorize = profileSpec(id, deps.env).authorize;
        return authorize ? [new URL(authorize.url).origin] : [];
      });
    },
  };
}
