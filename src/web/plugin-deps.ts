import { type Env, processEnv } from "../config/env.ts";
import { DEFAULT_WEB_PORT } from "../config/sections/web.ts";
import type { ClientSecretState } from "../plugins/oauth/client-config.ts";
import { fakeOAuthEndpoints } from "../plugins/oauth/fake-endpoints.ts";
import { knownOAuthProviders, oauthProvider } from "../plugins/oauth/providers.ts";
import { createOAuthConnector } from "./plugin-oauth.ts";

/** One plugin card on the Plugins page: the catalog's word on it and its live state (the readiness ladder). */
export type PluginCard = {
  name: string;
  description: string;
  /** none, api_key or oauth2. */
  auth: string;
  /** bundled, installed, dev_local or catalog (not on this machine yet). */
  source: string;
  version?: string;
  enabled: boolean;
  status: string;
  detail?: string;
  fix?: string;
  /** Whether an api_key plugin's secret is stored; never its value. */
  secret?: "set" | "missing" | "plaintext";
  /** An oauth2 plugin's provider and its client under [fermix_core.oauth.<provider>] (the secret: whether set). */
  oauth?: { provider: string; clientId?: string; secret: ClientSecretState; connecting: boolean };
};

export type PluginAction =
  | { action: "install" | "enable" | "disable"; name: string }
  | { action: "set_key"; name: string; secret: string };

/** What the Plugins page reads and does: the same functions `fermix plugins list|catalog|install|enable|disable|auth set` use. */
export type PluginsWeb = {
  list(): Promise<{ daemon: boolean; plugins: PluginCard[] }>;
  /** Does one action and returns the notice; a refusal throws (its message is the page's error). */
  act(action: PluginAction): Promise<string>;
  /** Writes [fermix_core.oauth.<provider>]: the id, and the secret through the secret store (blank keeps it). */
  setOAuthClient(input: { provider: string; clientId: string; clientSecret?: string }): Promise<string>;
  /** Starts (or rejoins) the plugin's PKCE login; resolves with the provider's authorize URL for the browser. */
  connect(name: string): Promise<string>;
  /** The origins of the providers' authorize URLs, which Connect redirects to (the page's CSP form-action). */
  formTargets?(): string[];
};

export type PluginsWebOptions = {
  /** The setup page's port, which the OAuth landing page links back to. */
  webPort?: number;
  /** The daemon's environment (FERMIX_TEST_OAUTH_<PROVIDER> points a provider at a test's fake). */
  env?: Env;
};

/**
 * The daemon's PluginsWeb: each call builds the CLI's plugin context afresh (config.toml as it is now), and every
 * change asks the daemon to reload its plugins, as the CLI verbs do.
 */
export function createPluginsWeb(opts: PluginsWebOptions = {}): PluginsWeb {
  const env = opts.env ?? processEnv();
  const oauth = createOAuthConnector({
    webPort: opts.webPort ?? DEFAULT_WEB_PORT,
    deps: async () => {
      const [{ pluginContext }, { oauthDepsOf }] = await Promise.all([
        import("../cli/_plugins.ts"),
        import("../cli/_plugins-oauth.ts"),
      ]);
      // The CLI's deps (src/cli/_plugins-oauth.ts), from the same plugin context, with the daemon's environment.
      return oauthDepsOf(await pluginContext(), env);
    },
    afterConnect: async () => (await import("../cli/_plugins-live.ts")).tellDaemonToReload(),
  });
  return {
    async list() {
      const [{ pluginContext }, { pluginsView }, { pluginSecretState }, { oauthClientState }] = await Promise.all([
        import("../cli/_plugins.ts"),
        import("../cli/_plugins-live.ts"),
        import("../plugins/settings/plugin-secrets.ts"),
        import("../plugins/oauth/client-config.ts"),
      ]);
      const ctx = await pluginContext();
      const [view, index, entries] = await Promise.all([
        pluginsView(ctx),
        ctx.host.catalogIndex(),
        ctx.host.entries(ctx.config),
      ]);
      const catalog = new Map(index.plugins.map((p) => [p.name, p]));
      const states = new Map(view.plugins.map((p) => [p.name, p]));
      const names = [...new Set([...index.plugins.map((p) => p.name), ...view.plugins.map((p) => p.name)])].sort();
      const plugins = names.map((name): PluginCard => {
        const entry = catalog.get(name);
        const state = states.get(name);
        const found = entries.find((e) => e.name === name);
        const manifestAuth = found?.manifest?.auth?.type;
        const auth = entry?.auth_type ?? manifestAuth ?? "none";
        const manifestOAuth = found?.manifest?.auth?.type === "oauth2" ? found.manifest.auth.provider : undefined;
        const provider = manifestOAuth ?? found?.catalogAuth?.provider ?? undefined;
        return {
          name,
          description: entry?.short_description ?? entry?.description ?? "",
          auth,
          source: state?.source ?? "catalog",
          version: state?.version ?? entry?.latest,
          enabled: state?.enabled ?? false,
          status: state?.status ?? (state?.enabled ? "not_installed" : "disabled"),
          ...(state?.detail ? { detail: state.detail } : {}),
          ...(state?.fix ? { fix: state.fix } : {}),
          ...(auth === "api_key" ? { secret: pluginSecretState(ctx.config, ctx.secrets, name) } : {}),
          ...(auth === "oauth2" && provider
            ? {
                oauth: {
                  provider,
                  ...oauthClientState(ctx.config, ctx.secrets, provider),
                  connecting: oauth.pending(provider) === name,
                },
              }
            : {}),
        };
      });
      return { daemon: view.daemon, plugins };
    },
    async act(request) {
      const [{ pluginContext, settingsDeps }, { tellDaemonToReload }, store, settings] = await Promise.all([
        import("../cli/_plugins.ts"),
        import("../cli/_plugins-live.ts"),
        import("../cli/_plugins-store.ts"),
        import("../plugins/settings/cli.ts"),
      ]);
      const ctx = await pluginContext();
      let notice: string;
      switch (request.action) {
        case "install": {
          // The CLI's install: the embedded catalog's signature and the tarball's sha256 are verified first.
          const { record, notes } = await store.installFromCatalog(request.name, undefined, ctx);
          notice = [`installed ${record.name} ${record.version} (signature verified)`, ...notes].join("; ");
          break;
        }
        case "enable": {
          const result = await store.enableWithInstall(request.name, ctx);
          notice = [`${request.name} enabled`, ...(result.notes ?? [])].join("; ");
          break;
        }
        case "disable": {
          const result = await settings.disable(request.name, await settingsDeps(ctx));
          notice = [`${request.name} disabled`, ...(result.notes ?? [])].join("; ");
          break;
        }
        case "set_key": {
          const secret = request.secret;
          const deps = { ...(await settingsDeps(ctx)), readSecret: async () => secret };
          const result = await settings.authSet(request.name, deps);
          notice = [`${request.name}: key saved`, ...(result.notes ?? [])].join("; ");
          break;
        }
      }
      await tellDaemonToReload().catch(() => false);
      return notice;
    },
    async setOAuthClient(input) {
      const [{ pluginContext }, { tellDaemonToReload }, { setOAuthClient }] = await Promise.all([
        import("../cli/_plugins.ts"),
        import("../cli/_plugins-live.ts"),
        import("../plugins/oauth/client-config.ts"),
      ]);
      const ctx = await pluginContext();
      const { where } = await setOAuthClient(ctx.paths.config, ctx.secrets, input);
      await tellDaemonToReload().catch(() => false);
      const stored =
        where === "keyring" ? "; secret stored in the OS keyring" : where ? "; secret stored in the file store" : "";
      return `${input.provider} OAuth client saved${stored}`;
    },
    connect: (name) => oauth.connect(name),
    // Chromium checks every hop of the redirect chain: the provider, then its redirect to the login's listener
    // (a loopback port picked per login, hence the wildcard).
    formTargets: () => [
      ...knownOAuthProviders().map((p) => new URL(oauthProvider(p, fakeOAuthEndpoints(env, p)).authorizeUrl).origin),
      "http://127.0.0.1:*",
    ],
  };
}
