import { basename } from "node:path";
import type { Config } from "../config/schema.ts";
import { createSecretStore } from "../config/secret-store.ts";
import { type DevLocalProblem, pluginsConfigured } from "../plugins/dev-local.ts";
import { createTokenStore } from "../plugins/oauth/token-store.ts";
import { createPluginHost } from "../plugins/plugin-host.ts";
import type { PluginState } from "../plugins/plugin-host-contract.ts";
import { statusFix } from "../plugins/readiness.ts";
import { enabledPlugins } from "../plugins/settings/plugin-config.ts";
import { createPluginStore } from "../plugins/store/plugin-store.ts";
import type { PluginsReport } from "../protocol/schemas.ts";
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
    if (!pluginsConfigured(config)) {
      return [{ id: "plugins", title: "plugins", status: "ok", detail: "none enabled" }];
    }
    // A running daemon knows more than config.toml does: whether each server is starting, up or quarantined.
    const live = await daemonReport(ctx);
    if (live) {
      // auth.json says more about a gone sign-in than the ladder, which stops at the first missing step.
      let stale: string[] = [];
      try {
        stale = pluginsNeedingReconnect(config, ctx.paths.auth, new Date(ctx.now()));
      } catch (err) {
        return [authFileRow(ctx, err), ...liveRows(live, [])];
      }
      return liveRows(live, stale);
    }
    const built = pluginHost(ctx, config);
    // dev_local failures are loud (plugins spec), so they show without --full too; cheap when it is unset.
    const problems = (await built.host.problems(config)).map((p) => problemRow(p));
    if (ctx.full) return [...problems, ...(await fullRows(built, config))];
    let stale: string[];
    try {
      stale = pluginsNeedingReconnect(config, ctx.paths.auth, new Date(ctx.now()));
    } catch (err) {
      return [...problems, authFileRow(ctx, err)];
    }
    if (!stale.length) {
      return [
        ...problems,
        {
          id: "plugins",
          title: "plugins",
          status: "ok",
          detail: `${enabled.length} enabled${enabled.length ? ` (${enabled.join(", ")})` : ""}, no sign-in gone stale; --full checks each one's readiness`,
        },
      ];
    }
    return [...problems, ...stale.map((name) => reconnectRow(name))];
  },
});

async function fullRows(built: ReturnType<typeof pluginHost>, config: Config): Promise<DoctorRow[]> {
  const { ctx, host } = built;
  // Read-only: bundled plugins are not unpacked here (the daemon does that on first use). A dev_local folder
  // that does not load already has its problem row.
  const states = (await host.states(config)).filter(
    (s) => (s.enabled || s.source === "dev_local") && !(s.source === "dev_local" && s.loadError),
  );
  const rows = states.map((s) => stateRow(s));
  const tokenError = built.tokenError();
  if (tokenError) rows.unshift(authFileRow(ctx, tokenError));
  return rows;
}

function pluginHost(ctx: DoctorContext, config: Config) {
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
  return { ctx, host, tokenError: () => tokenError };
}

/** The daemon's report when one runs and has plugins enabled; undefined otherwise (or when it does not answer in time). */
async function daemonReport(ctx: DoctorContext): Promise<PluginsReport | undefined> {
  if (!ctx.daemonPlugins) return undefined;
  let timer: ReturnType<typeof setTimeout> | undefined;
  try {
    const report = await Promise.race([
      ctx.daemonPlugins(),
      new Promise<undefined>((resolve) => {
        timer = setTimeout(() => resolve(undefined), ctx.probeTimeoutMs);
      }),
    ]);
    return report?.active ? report : undefined;
  } catch {
    return undefined;
  } finally {
    clearTimeout(timer);
  }
}

function liveRows(report: PluginsReport, stale: readonly string[]): DoctorRow[] {
  const rows = report.problems.map((p) => problemRow(p));
  for (const p of report.plugins.filter((s) => s.enabled || s.source === "dev_local")) {
    const id = `plugins.${p.name}`;
    if (stale.includes(p.name)) {
      rows.push(reconnectRow(p.name));
      continue;
    }
    const label = `${p.name}${p.version ? ` ${p.version}` : ""} (${p.source})`;
    if (p.load_error) {
      rows.push({ id, title: "plugins", status: "warn", detail: `${label} does not load: ${p.load_error}` });
    } else if (p.status === "ready") {
      rows.push({
        id,
        title: "plugins",
        status: "ok",
        detail: `${label}: ready${p.detail ? `, ${p.detail}` : ""} (in the daemon)`,
      });
    } else if (p.status === "starting") {
      rows.push({
        id,
        title: "plugins",
        status: "ok",
        detail: `${label}: its server is starting (${p.detail}) in the daemon`,
      });
    } else if (p.status === "not_installed" && p.source === "bundled") {
      rows.push({ id, title: "plugins", status: "ok", detail: `${p.name} (bundled): unpacked when first used` });
    } else {
      rows.push({
        id,
        title: "plugins",
        status: "warn",
        detail: `${label}: ${p.status.replaceAll("_", " ")}${p.detail ? ` — ${p.detail}` : ""}`,
        ...(p.fix ? { fix: p.fix } : {}),
      });
    }
  }
  return rows;
}

function problemRow(p: DevLocalProblem): DoctorRow {
  return { id: `plugins.dev_local.${basename(p.folder)}`, title: "plugins", status: "warn", detail: p.message };
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
