import { resolveSecret } from "../config/secrets.ts";
import { accountLookup } from "../plugins/oauth/account-lookup.ts";
import { type AuthLoginOptions, authLogin, authLogout, authReauthorize, authRefresh } from "../plugins/oauth/cli.ts";
import { fakeOAuthEndpoints } from "../plugins/oauth/fake-endpoints.ts";
import { createTokenStore } from "../plugins/oauth/token-store.ts";
import type { CliResult } from "../plugins/settings/cli.ts";
import { spawn, which } from "../runtime/processes.ts";
import { writeStderr } from "../runtime/stdio.ts";
import type { PluginContext } from "./_plugins.ts";

/** `plugins auth login|reauthorize|refresh|logout NAME [--no-browser --port N --timeout S]`. */
export async function oauthCommand(
  action: string,
  name: string,
  opts: AuthLoginOptions,
  ctx: PluginContext,
): Promise<CliResult> {
  const entries = await ctx.host.entries(ctx.config);
  const deps = {
    configFile: ctx.paths.config,
    config: ctx.config,
    store: createTokenStore(ctx.paths.auth),
    manifestFor: (n: string) => entries.find((e) => e.name === n)?.manifest as never,
    resolveSecret: (ref: Parameters<typeof resolveSecret>[0], slot: string) =>
      resolveSecret(ref, slot, {
        env: ctx.env,
        secretsDir: ctx.paths.secrets,
        profile: ctx.config.fermix_core?.profile,
      }),
    printUrl: (url: string) => void writeStderr(`Open this URL to sign in:\n${url}\n`),
    openBrowser: opts.noBrowser ? undefined : openBrowser,
    // Tests' fake provider, as the web setup takes it (FERMIX_TEST_OAUTH_<PROVIDER>, a loopback origin only).
    endpoints: (provider: string) => fakeOAuthEndpoints(ctx.env, provider),
    accountOf: accountLookup(
      (n) => entries.find((e) => e.name === n)?.manifest,
      async () => (await import("../net/guarded-fetch.ts")).createGuardedFetch(),
      ctx.env,
    ),
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
