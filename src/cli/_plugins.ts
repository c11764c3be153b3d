import { processEnv } from "../config/env.ts";
import { loadConfig } from "../config/load.ts";
import { fermixPaths, resolveHome } from "../config/paths.ts";
import { createSecretStore } from "../config/secret-store.ts";
import { loadCatalog } from "../plugins/catalog/load-catalog.ts";
import { createTokenStore } from "../plugins/oauth/token-store.ts";
import { createPluginHost } from "../plugins/plugin-host.ts";
import type { PluginEntry } from "../plugins/plugin-host-contract.ts";
import type { ManifestView, SettingsCliDeps } from "../plugins/settings/cli.ts";
import { readSecretInput } from "../plugins/settings/read-secret-input.ts";
import { createPluginStore } from "../plugins/store/plugin-store.ts";
import { VERSION } from "../version.ts";
import { UsageError } from "./exit.ts";

/** What every `fermix plugins …` verb works with, built as the daemon builds it, from this FERMIX_HOME. */
export async function pluginContext() {
  const env = processEnv();
  const paths = fermixPaths(resolveHome(env));
  const config = await loadConfig(paths.config);
  const secrets = createSecretStore({
    secretsDir: paths.secrets,
    profile: config.fermix_core?.profile,
    prefer: config.fermix_core?.secret_store === "file" ? "file" : undefined,
  });
  let catalog: ReturnType<typeof loadCatalog> | undefined;
  const tokens = createTokenStore(paths.auth);
  const host = createPluginHost({
    paths,
    coreVersion: VERSION,
    catalog: () => (catalog ??= loadCatalog()),
    store: createPluginStore({ paths: paths.plugins }),
    secrets,
    // Without it `plugins list|doctor` could not tell a stale or refused sign-in from a good one.
    tokenState: (name) => tokens.state(name),
  });
  return { env, paths, config, secrets, host };
}

export type PluginContext = Awaited<ReturnType<typeof pluginContext>>;

/** The settings verbs' view of the plugins: their declared auth and config, from the manifests fermix has. */
export async function settingsDeps(ctx: PluginContext, extraWords: readonly string[] = []): Promise<SettingsCliDeps> {
  const entries = await ctx.host.entries(ctx.config);
  const byName = new Map<string, PluginEntry>(entries.map((e) => [e.name, e]));
  return {
    configFile: ctx.paths.config,
    config: ctx.config,
    store: ctx.secrets,
    known: entries.map((e) => e.name),
    manifestFor: (name) => {
      const manifest = byName.get(name)?.manifest;
      return manifest ? (manifest as unknown as ManifestView) : catalogView(byName.get(name));
    },
    readSecret: (name, prompt) => readSecretInput({ name, prompt, extra: extraWords }),
  };
}

/** A catalog plugin not unpacked yet: what the index says about its auth is enough for settings. */
function catalogView(entry: PluginEntry | undefined): ManifestView | undefined {
  if (!entry?.catalogAuth) return undefined;
  const type = entry.catalogAuth.type as ManifestView["auth"]["type"];
  return { auth: { type, provider: entry.catalogAuth.provider ?? undefined } };
}

/** Exactly one argument, or the subcommand's usage. */
export function one(rest: string[], usage: string): string {
  if (rest.length !== 1) throw UsageError(`usage: fermix plugins ${usage}`);
  return rest[0]!;
}
