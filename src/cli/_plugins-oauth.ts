import { resolveSecret } from "../config/secrets.ts";
import { accountLookup } from "../plugins/oauth/account-lookup.ts";
import { type AuthLoginOptions, authLogin, authLogout, authReauthorize, authRefresh } from "../plugins/oauth/cli.ts";
import { fakeOAuthEndpoints } from "../plugins/oauth/fake-endpoints.ts";
import { createTokenStore } from "../plugins/oauth/token-store.ts";
import type { CliResult } from "../plugins/settings/cli.ts";
import { spawn, which } from "../runtime/processes.ts";
import { writeStderr } from "../runtime/stdio.ts";
import type { PluginContext } from "./_plugins.ts";

/**
 * What plugin sign-in needs from a plugin context, shared by these verbs and the web setup's Connect: the token store,
 * the manifests, the secrets, the account lookup after a login, and tests' fake provider (FERMIX_TEST_OAUTH_<PROVIDER>,
 * a loopback origin only) read from `env`.
 */
export async function oauthDepsOf(ctx: PluginContext, env = ctx.env) {
  const entries = await ctx.host.entries(ctx.config);
  const manifestOf = (n: string) => entries.find((e) => e.name === n)?.manifest;
  return {
    configFile: ctx.paths.config,
    config: ctx.config,
    store: createTokenStore(ctx.paths.auth),
    manifestFor: (n: string) => manifestOf(n) as never,
    resolveSecret: (ref: Parameters<typeof resolveSecret>[0], slot: string) =>
      resolveSecret(ref, slot, {
        env: ctx.env,
        secretsDir: ctx.paths.secrets,
        profile: ctx.config.fermix_core?.profile,
      }),
    endpoints: (provider: string) => fakeOAuthEndpoints(env, provider),
    accountOf: accountLookup(
      manifestOf,
      async () => (await import("../net/guarded-fetch.ts")).createGuardedFetch(),
      env,
    ),
  };
}

/** `plugins auth login|reauthorize|refresh|logout NAME [--no-browser --port N --timeout S]`. */
export async function oauthCommand(
  action: string,
  name: string,
  opts: AuthLoginOptions,
  ctx: PluginContext,
): Promise<CliResult> {
  const deps = {
    ...(await oauthDepsOf(ctx)),
    printUrl: (url: string) => void writeStderr(`Open this URL to sign in:\n${url}\n`),
    openBrowser: opts.noBrowser ? undefined : openBrowser,
  };
  switch (action) {
    case "login":
      return authLogin(name, opts, deps);
    case "reauthorize":
      return authReauthorize(name, opts, deps);
    case "refresh":
      return authRefresh(name, deps);
    default:
      return authLogout(name, deps);
  }
}

/** The system's browser launcher; a failure only means the person opens the printed URL themselves. */
export function openBrowser(url: string): void {
  const command = process.platform === "darwin" ? "open" : "xdg-open";
  if (!which(command)) return;
  try {
    spawn([command, url]).unref();
  } catch {}
}
