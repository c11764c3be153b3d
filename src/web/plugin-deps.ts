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
};

export type PluginAction =
  | { action: "install" | "enable" | "disable"; name: string }
  | { action: "set_key"; name: string; secret: string };

/** What the Plugins page reads and does: the same functions `fermix plugins list|catalog|install|enable|disable|auth set` use. */
export type PluginsWeb = {
  list(): Promise<{ daemon: boolean; plugins: PluginCard[] }>;
  /** Does one action and returns the notice; a refusal throws (its message is the page's error). */
  act(action: PluginAction): Promise<string>;
};

/**
 * The daemon's PluginsWeb: each call builds the CLI's plugin context afresh (config.toml as it is now), and every
 * change asks the daemon to reload its plugins, as the CLI verbs do.
 */
export function createPluginsWeb(): PluginsWeb {
  return {
    async list() {
      const [{ pluginContext }, { pluginsView }, { pluginSecretState }] = await Promise.all([
        import("../cli/_plugins.ts"),
        import("../cli/_plugins-live.ts"),
        import("../plugins/settings/plugin-secrets.ts"),
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
        const manifestAuth = entries.find((e) => e.name === name)?.manifest?.auth?.type;
        const auth = entry?.auth_type ?? manifestAuth ?? "none";
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
          const record = await ctx.host.install(request.name);
          notice = `installed ${record.name} ${record.version} (signature verified)`;
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
  };
}
