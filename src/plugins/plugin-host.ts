import { existsSync } from "node:fs";
import { join } from "node:path";
import type { FermixPaths } from "../config/paths.ts";
import type { Config } from "../config/schema.ts";
import type { SecretStore } from "../config/secret-store.ts";
import { defineError } from "../error.ts";
import { which } from "../runtime/processes.ts";
import type { Catalog } from "./catalog/catalog-contract.ts";
import { type DevLocalProblem, devLocalRoots, loadDevLocal, pluginsConfigured } from "./dev-local.ts";
import { BUNDLED_PLUGINS, compareVersions, coreVersionOf, SUPPORTED_PLUGIN_APIS } from "./manifest/checks.ts";
import type { Manifest } from "./manifest/schema.ts";
import { validatePluginDir } from "./manifest/validate.ts";
import type { PluginEntry, PluginHost, PluginState } from "./plugin-host-contract.ts";
import type { PluginSummary } from "./prompt-section.ts";
import { readiness } from "./readiness.ts";
import { enabledPlugins, pluginConfigValues } from "./settings/plugin-config.ts";
import { pluginSecretState } from "./settings/plugin-secrets.ts";
import type { PluginStore } from "./store/plugin-store.ts";
import type { InstalledRecord } from "./store/store-record.ts";

export const PluginRefused = defineError<{ name: string }>("plugin_refused");
export const UnknownPlugin = defineError<{ name: string }>("unknown_plugin");

export type PluginHostDeps = {
  paths: FermixPaths;
  coreVersion: string;
  catalog: () => Promise<Catalog>;
  store: PluginStore;
  secrets: SecretStore;
  /** An OAuth plugin's token state from auth.json ("invalidated" also when it is well past expiry). */
  tokenState?: (name: string) => "valid" | "invalidated" | undefined;
};

/**
 * Everything fermix knows about plugins, joined: the signed catalog in the binary, the versioned store,
 * dev_local folders, config.toml's enabled list and settings, and stored secrets. Bundled plugins are
 * unpacked into the store from the catalog (through the same verified pipeline) the first time they are needed.
 */
export function createPluginHost(deps: PluginHostDeps): PluginHost {
  const core = coreVersionOf(deps.coreVersion) ?? "0.0.0";
  /** The dev_local problems the latest entries() found, for the config it was given. */
  let lastDevLocal: { config: Config; problems: DevLocalProblem[] } | undefined;

  async function install(
    name: string,
    version?: string,
    opts: { allowBundled?: boolean } = {},
  ): Promise<InstalledRecord> {
    if (!opts.allowBundled && (BUNDLED_PLUGINS as readonly string[]).includes(name)) {
      throw PluginRefused(`${name} is bundled with fermix and always present; enable or disable it instead`, { name });
    }
    const catalog = await deps.catalog();
    const entry = catalog.find(name);
    if (!entry)
      throw UnknownPlugin(`no plugin named "${name}" in this build's catalog (fermix plugins catalog lists them)`, {
        name,
      });
    const wanted = version ?? entry.latest;
    if (entry.yanked.includes(wanted))
      throw PluginRefused(`${name} ${wanted} was withdrawn (yanked); install another version`, { name });
    const release = entry.versions.find((v) => v.version === wanted);
    if (!release) {
      throw PluginRefused(
        `${name} has no version ${wanted} (available: ${entry.versions.map((v) => v.version).join(", ")})`,
        { name },
      );
    }
    if (release.plugin_api !== null && !(SUPPORTED_PLUGIN_APIS as readonly number[]).includes(release.plugin_api)) {
      throw PluginRefused(
        `${name} ${wanted} needs plugin API ${release.plugin_api}, which this fermix does not speak; upgrade fermix`,
        { name },
      );
    }
    if (release.min_core_version && compareVersions(release.min_core_version, core) > 0) {
      throw PluginRefused(
        `${name} ${wanted} needs fermix ${release.min_core_version} or newer (this is ${core}); run fermix upgrade`,
        { name },
      );
    }
    const file = await catalog.artifact(name, wanted);
    // sigstore is loaded for an install only: reading plugin states never needs it.
    const [{ embeddedTrust }, { verifyArtifact }] = await Promise.all([
      import("../trust/embedded-keys.ts"),
      import("../trust/verify.ts"),
    ]);
    return deps.store.install({
      name,
      version: wanted,
      artifact: file.bytes,
      expectedSha256: file.sha256,
      verifySignature: (bytes) => verifyArtifact({ bytes, bundle: file.bundle, trust: embeddedTrust() }),
      validate: (dir) =>
        validatePluginDir(dir, { expectedName: name, expectedVersion: wanted, coreVersion: deps.coreVersion }),
      probeRuntime: async (dir) => probeRuntime(dir, deps.coreVersion),
    });
  }

  async function loadManifest(dir: string, name?: string, version?: string) {
    return validatePluginDir(dir, { expectedName: name, expectedVersion: version, coreVersion: deps.coreVersion });
  }

  /** Every plugin fermix can name: bundled, installed, dev_local, and the rest of the catalog. */
  async function entries(config: Config, opts: { catalog?: boolean } = {}): Promise<PluginEntry[]> {
    const out = new Map<string, PluginEntry>();
    // What a turn needs is on this machine (store, dev_local); the catalog, and sigstore to check it, only names
    // the plugins not installed yet.
    const catalogPlugins = opts.catalog === false ? [] : (await deps.catalog()).plugins;
    for (const plugin of catalogPlugins) {
      const bundled = (BUNDLED_PLUGINS as readonly string[]).includes(plugin.name);
      out.set(plugin.name, {
        name: plugin.name,
        source: bundled ? "bundled" : "catalog",
        latest: plugin.latest,
        description: plugin.description,
        catalogAuth: { type: plugin.auth_type, provider: plugin.auth_provider },
      });
    }
    for (const active of await deps.store.list()) {
      const name = active.record.name;
      const entry = out.get(name) ?? {
        name,
        source: (BUNDLED_PLUGINS as readonly string[]).includes(name) ? ("bundled" as const) : ("installed" as const),
        description: "",
      };
      const record = active.record;
      const incompatible =
        !(SUPPORTED_PLUGIN_APIS as readonly number[]).includes(record.plugin_api) ||
        compareVersions(record.min_core_version, core) > 0;
      const loaded = await loadManifest(active.dir, name, record.version);
      out.set(name, {
        ...entry,
        source: entry.source === "bundled" ? "bundled" : "installed",
        version: record.version,
        dir: active.dir,
        incompatible,
        manifest: loaded.ok ? loaded.manifest : undefined,
        loadError: loaded.ok ? undefined : loaded.errors.map((e) => `${e.path}: ${e.message}`).join("; "),
        description: entry.description || (loaded.ok ? loaded.manifest.description : ""),
      });
    }
    // A dev_local folder never displaces a bundled or installed plugin (the store's entries have a dir);
    // a bad one still gets a row, with its loadError, so list and doctor show it.
    const installed = [...out.values()].filter((e) => e.dir).map((e) => e.name);
    const dev = await loadDevLocal(devLocalRoots(config), { installed, coreVersion: deps.coreVersion });
    lastDevLocal = { config, problems: dev.problems };
    for (const plugin of dev.plugins) {
      out.set(plugin.name, {
        name: plugin.name,
        source: "dev_local",
        dir: plugin.dir,
        version: plugin.manifest?.version,
        description: plugin.manifest?.description ?? "",
        manifest: plugin.manifest,
        loadError: plugin.loadError,
      });
    }
    return [...out.values()].sort((a, b) => a.name.localeCompare(b.name));
  }

  /** What under dev_local did not load. Cheap: no catalog, nothing unpacked, nothing when dev_local is unset. */
  async function problems(config: Config): Promise<DevLocalProblem[]> {
    const roots = devLocalRoots(config);
    if (!roots.length) return [];
    // Callers read the states, then the problems: the folders were just validated, once is enough.
    if (lastDevLocal?.config === config) return lastDevLocal.problems;
    const installed = (await deps.store.list()).map((a) => a.record.name);
    return (await loadDevLocal(roots, { installed, coreVersion: deps.coreVersion })).problems;
  }

  /** Bundled plugins that are enabled but not unpacked yet are unpacked now (verified like any install). */
  async function ensureBundled(config: Config): Promise<void> {
    const enabled = new Set(enabledPlugins(config));
    for (const name of BUNDLED_PLUGINS) {
      if (enabled.has(name) && !(await deps.store.current(name)))
        await install(name, undefined, { allowBundled: true });
    }
  }

  async function states(config: Config, opts: { catalog?: boolean } = {}): Promise<PluginState[]> {
    const enabled = new Set(enabledPlugins(config));
    return (await entries(config, opts)).map((entry) => {
      // A disabled plugin is just that: no secret lookup (a keyring call each) or runtime probe for it.
      if (!enabled.has(entry.name)) return { ...entry, enabled: false, status: "disabled" as const };
      const manifest = entry.manifest;
      const provider = manifest?.auth.type === "oauth2" ? (manifest.auth as { provider?: string }).provider : undefined;
      const client = provider ? config.fermix_core?.oauth?.[provider] : undefined;
      const status = readiness({
        enabled: enabled.has(entry.name),
        manifest: manifest
          ? { auth: manifest.auth as { type: "none" | "oauth2" | "api_key" }, config: manifest.config }
          : undefined,
        incompatible: entry.incompatible,
        runtimeMissing: manifest && entry.dir ? !probeRuntimeSync(entry.dir, manifest) : false,
        configValues: pluginConfigValues(config, entry.name),
        secretSet: pluginSecretState(config, deps.secrets, entry.name) !== "missing",
        oauthClientConfigured: Boolean(client?.client_id && client?.client_secret),
        token: deps.tokenState?.(entry.name),
      });
      return { ...entry, enabled: enabled.has(entry.name), status };
    });
  }

  /**
   * What a turn needs: the enabled plugins' states (bundled ones unpacked on first use). Nothing is read
   * at all when no plugin is enabled, so a plain `fermix ask` pays nothing for plugins.
   */
  async function activeStates(config: Config): Promise<PluginState[]> {
    if (!pluginsConfigured(config)) return [];
    await ensureBundled(config).catch(() => {});
    const found = await states(config, { catalog: false });
    // An enabled plugin that is on this machine nowhere: not installed (the catalog is not read to say so).
    const missing = enabledPlugins(config)
      .filter((name) => !found.some((s) => s.name === name))
      .map(
        (name): PluginState => ({ name, source: "catalog", description: "", enabled: true, status: "not_installed" }),
      );
    return [...found, ...missing];
  }

  return {
    install,
    entries,
    problems,
    states,
    activeStates,
    ensureBundled,
    store: deps.store,
    catalogIndex: async () => (await deps.catalog()).index,
  };
}

type RuntimeSpec = { kind?: string; command?: string; vendored?: boolean; min_version?: string };

/** An mcp plugin's host runtime: a bare command on PATH, or its vendored binary for this machine. */
function probeRuntimeSync(dir: string, manifest: Manifest): boolean {
  const runtime = (manifest as { runtime?: RuntimeSpec }).runtime;
  if (!runtime?.command) return true;
  if (runtime.vendored) return existsSync(join(dir, "bin", hostTarget(), runtime.command));
  return which(runtime.command) !== null;
}

async function probeRuntime(dir: string, coreVersion: string) {
  const loaded = await validatePluginDir(dir, { coreVersion });
  if (!loaded.ok || probeRuntimeSync(dir, loaded.manifest)) return { ok: true as const };
  const runtime = (loaded.manifest as { runtime?: RuntimeSpec }).runtime;
  return {
    ok: false as const,
    status: "missing_host_runtime" as const,
    reason: `${runtime?.command} was not found on PATH; install ${runtime?.kind === "python" ? "Python" : runtime?.kind === "node" ? "Node.js" : runtime?.command} and try again`,
  };
}

function hostTarget(): string {
  const os = process.platform === "darwin" ? "macos" : "linux";
  const arch = process.arch === "arm64" ? "aarch64" : "x86_64";
  return `${os}-${arch}`;
}

/** For the runtime prompt: whether a plugin is enabled and ready, with its manifest's tool names. */
export function summaryOf(state: PluginState): PluginSummary {
  return {
    name: state.name,
    enabled: state.enabled,
    status: state.status,
    tools: (state.manifest?.tools ?? []).map((t) => t.name),
  };
}
