import type { Config } from "../config/schema.ts";
import { createSecretStore } from "../config/secret-store.ts";
import { createTokenStore } from "../plugins/oauth/token-store.ts";
import { createPluginHost, type PluginState } from "../plugins/plugin-host.ts";
import { statusFix } from "../plugins/readiness.ts";
import { enabledPlugins } from "../plugins/settings/plugin-config.ts";
import { createPluginStore } from "../plugins/store/plugin-store.ts";
import { type DoctorContext, type DoctorRow, defineCheck, skippedForConfig } from "./check.ts";
import { pluginsNeedingReconnect } from "./plugin-reconnect.ts";

/**
 * Enabled plugins. By default only what config.toml and auth.json say (a sign-in that is gone); with
 * --full, each enabled plugin's whole readiness ladder as `fermix plugins doctor` computes it — manifest,
 * settings, secret (a keyring lookup each), host runtime, OAuth client and token.
 */
export const pluginsCheck = defineCheck({
  id: "plugins",
  async run(ctx) {
    if (!ctx.config) return [skippedForConfig("plugins", "plugins")];
    const config = ctx.config;
    const enabled = enabledPlugins(config);
    const devLocal = config.fermix_core?.plugins?.dev_local ?? [];
    if (!enabled.length && !devLocal.length) {
      return [{ id: "plugins", title: "plugins", status: "ok", detail: "none enabled" }];
    }
    if (ctx.full) return fullRows(ctx, config);
    let stale: string[];
    try {
      stale = pluginsNeedingReconnect(config, ctx.paths.auth, new Date(ctx.now()));
    } catch (err) {
      return [authFileRow(ctx, err)];
    }
    if (!stale.length) {
      return [
        {
          id: "plugins",
          title: "plugins",
          status: "ok",
          detail: `${enabled.length} enabled (${enabled.join(", ")}), no sign-in gone stale; --full checks each one's readiness`,
        },
      ];
    }
    return stale.map((name) => reconnectRow(name));
  },
});

async function fullRows(ctx: DoctorContext, config: Config): Promise<DoctorRow[]> {
  const tokens = createTokenStore(ctx.paths.auth);
  let tokenError: unknown;
  const host = createPluginHost({
    paths: ctx.paths,
    coreVersion: ctx.version,
    catalog: ctx.loadCatalog,
    store: createPluginStore({ paths: ctx.paths.plugins }),
    secrets: createSecretStore({
      secretsDir: ctx.paths.secrets,
      profile: config.fermix_core?.profile,
      prefer: config.fermix_core?.secret_store === "file" ? "file" : undefined,
      platform: ctx.platform,
      run: (argv) => ctx.run(argv),
    }),
    tokenState: (name) => {
      try {
        return tokens.state(name, new Date(ctx.now()));
      } catch (err) {
        tokenError = err;
        return undefined;
      }
    },
  });
  // Read-only: bundled plugins are not unpacked here (the daemon does that on first use).
  const states = (await host.states(config)).filter((s) => s.enabled || s.source === "dev_local");
  const rows = states.map((s) => stateRow(s));
  if (tokenError) rows.unshift(authFileRow(ctx, tokenError));
  return rows;
}

function stateRow(s: PluginState): DoctorRow {
  const id = `plugins.${s.name}`;
  const version = s.version ? ` ${s.version}` : "";
  if (s.loadError) {
    return {
      id,
      title: "plugins",
      status: "warn",
      detail: `${s.name}${version} (${s.source}) does not load: ${s.loadError}`,
      fix: s.source === "dev_local" ? `fix the plugin in ${s.dir}` : `fermix plugins upgrade ${s.name}`,
    };
  }
  if (s.status === "ready") {
    return { id, title: "plugins", status: "ok", detail: `${s.name}${version} (${s.source}): ready` };
  }
  if (s.status === "not_installed" && s.source === "bundled") {
    return { id, title: "plugins", status: "ok", detail: `${s.name} (bundled): unpacked when first used` };
  }
  if (s.status === "reauthorization_required") return reconnectRow(s.name);
  const provider = s.manifest?.auth.type === "oauth2" ? (s.manifest.auth as { provider?: string }).provider : undefined;
  return {
    id,
    title: "plugins",
    status: "warn",
    detail: `${s.name}${version} (${s.source}): ${s.status.replaceAll("_", " ")}`,
    fix: statusFix(s.name, s.status, provider ?? s.catalogAuth?.provider ?? undefined),
  };
}

function reconnectRow(name: string): DoctorRow {
  return {
    id: `plugins.${name}`,
    title: "plugins",
    status: "warn",
    detail: `${name}: its sign-in was revoked or expired long ago; its tools fail until you reconnect`,
    fix: statusFix(name, "reauthorization_required"),
  };
}

function authFileRow(ctx: DoctorContext, err: unknown): DoctorRow {
  const message = err instanceof Error ? err.message : String(err);
  return {
    id: "plugins.auth",
    title: "plugins",
    status: "warn",
    detail: message.split(ctx.paths.auth).join(ctx.display(ctx.paths.auth)),
    fix: "move auth.json aside, then fermix plugins auth login NAME for each OAuth plugin",
  };
}
