import type { Config } from "../../config/schema.ts";
import type { SecretStore } from "../../config/secret-store.ts";
import { defineError } from "../../error.ts";
import type { Log } from "../../observability/log.ts";
import { readiness, statusFix } from "../readiness.ts";
import {
  type DeclaredSetting,
  disablePlugin,
  enabledPlugins,
  enablePlugin,
  InvalidPluginSetting,
  pluginConfigValues,
  setPluginConfig,
} from "./plugin-config.ts";
import { clearPluginSecret, pluginSecretState, setPluginSecret } from "./plugin-secrets.ts";
import { readSecretInput } from "./read-secret-input.ts";

/**
 * The bodies of `fermix plugins auth set|clear|status`, `config`, `config set`, `enable` and `disable`.
 * Each returns what to print — tab-separated text for people and scripts, a value for `--json`, and notes
 * for stderr — and the command files only print it. No output ever carries a secret's value: the value
 * goes from `readSecret` straight to the store, and states are reported as set / missing / plaintext.
 */
export const UnknownPlugin = defineError<{ name: string; known: string[] }>("unknown_plugin");

export type ManifestView = {
  auth: { type: "none" | "oauth2" | "api_key"; provider?: string; prompt?: string };
  config?: ReadonlyArray<DeclaredSetting & { prompt?: string }>;
};
export type SettingsCliDeps = {
  configFile: string;
  config: Config;
  store: SecretStore;
  manifestFor(name: string): ManifestView | undefined;
  /** Every plugin name the registry knows: named in unknown-plugin errors, listed by `auth status`. */
  known?: readonly string[];
  /** The secret for `auth set`; by default stdin or a no-echo prompt (read-secret-input.ts). */
  readSecret?: (name: string, prompt: string | undefined) => Promise<string>;
  /** What `auth status` says for an oauth2 plugin (token state lives with the OAuth code). */
  oauthState?: (name: string) => string;
  log?: Log;
};
export type CliResult = { text: string; json: unknown; notes?: string[] };

export async function authSet(name: string, deps: SettingsCliDeps): Promise<CliResult> {
  const manifest = requireManifest(name, deps);
  requireApiKey(name, manifest);
  const readSecret = deps.readSecret ?? ((n, prompt) => readSecretInput({ name: n, prompt }));
  const value = await readSecret(name, manifest.auth.prompt);
  const { where } = await setPluginSecret(deps.configFile, deps.store, name, value);
  deps.log?.info("plugin secret stored", { plugin: name, where });
  const notes = [where === "keyring" ? "stored in the OS keyring" : "stored in the file store (no OS keyring writer)"];
  if (!enabledPlugins(deps.config).includes(name)) notes.push(`${name} is not enabled: fermix plugins enable ${name}`);
  return {
    text: row(name, "api_key", "set", where),
    json: { plugin: name, auth: "api_key", state: "set", stored_in: where },
    notes,
  };
}

export async function authClear(name: string, deps: SettingsCliDeps): Promise<CliResult> {
  // A plugin whose manifest is gone can still have its secret removed.
  if (deps.config.fermix_core?.plugin_secrets?.[name] === undefined) requireApiKey(name, requireManifest(name, deps));
  const { changed } = await clearPluginSecret(deps.configFile, deps.store, name);
  deps.log?.info("plugin secret cleared", { plugin: name });
  return {
    text: row(name, "api_key", "missing"),
    json: { plugin: name, auth: "api_key", state: "missing", changed },
  };
}

export async function authStatus(name: string | undefined, deps: SettingsCliDeps): Promise<CliResult> {
  if (name !== undefined) requireKnown(name, deps);
  const names = name !== undefined ? [name] : everyPlugin(deps);
  const notes: string[] = [];
  const plugins = names.map((n) => {
    const manifest = deps.manifestFor(n);
    const type = manifest?.auth.type ?? (deps.config.fermix_core?.plugin_secrets?.[n] ? "api_key" : "unknown");
    const state = authState(n, type, manifest, deps);
    if (state === "plaintext") {
      notes.push(
        `${n}: the secret is plaintext in config.toml; run fermix plugins auth set ${n} to move it to the keychain`,
      );
    }
    return { plugin: n, auth: type, state };
  });
  return { text: plugins.map((p) => row(p.plugin, p.auth, p.state)).join(""), json: { plugins }, notes };
}

export async function configShow(name: string, deps: SettingsCliDeps): Promise<CliResult> {
  const declared = requireManifest(name, deps).config ?? [];
  const values = pluginConfigValues(deps.config, name);
  const settings = declared.map((d) => ({
    key: d.key,
    kind: d.kind ?? "text",
    required: d.required === true,
    value: values[d.key] ?? null,
    prompt: d.prompt ?? null,
  }));
  const undeclared = Object.keys(values).filter((k) => !declared.some((d) => d.key === k));
  const text =
    settings.map((s) => row(name, s.key, s.value === null ? "(unset)" : String(s.value), need(s.required))).join("") +
    undeclared.map((k) => row(name, k, String(values[k]), "undeclared")).join("");
  const notes = declared.length ? [] : [`${name} declares no settings`];
  if (undeclared.length) notes.push(`${name} does not declare ${undeclared.join(", ")}; the plugin ignores them`);
  return { text, json: { plugin: name, settings, undeclared }, notes };
}

export async function configSet(name: string, key: string, value: string, deps: SettingsCliDeps): Promise<CliResult> {
  const declared = requireManifest(name, deps).config ?? [];
  const result = setPluginConfig(deps.configFile, name, key, value, declared);
  deps.log?.info("plugin setting changed", { plugin: name, key: result.key });
  return {
    text: row(name, result.key, String(result.value)),
    json: { plugin: name, key: result.key, value: result.value, changed: result.changed },
  };
}

export async function enable(name: string, deps: SettingsCliDeps): Promise<CliResult> {
  const manifest = requireManifest(name, deps);
  const { changed } = enablePlugin(deps.configFile, name);
  deps.log?.info("plugin enabled", { plugin: name, changed });
  const notes = changed ? [] : [`${name} was already enabled`];
  // What still stands between the plugin and `ready` (OAuth token state is not known here).
  if (manifest.auth.type !== "oauth2") {
    const status = readiness({
      enabled: true,
      manifest,
      configValues: pluginConfigValues(deps.config, name),
      secretSet: pluginSecretState(deps.config, deps.store, name) !== "missing",
      oauthClientConfigured: false,
    });
    if (status !== "ready") notes.push(`${name} is ${status}: ${statusFix(name, status)}`);
  }
  return { text: row(name, "enabled"), json: { plugin: name, enabled: true, changed }, notes };
}

export async function disable(name: string, deps: SettingsCliDeps): Promise<CliResult> {
  // An uninstalled plugin that is still listed must be removable from the list.
  if (!enabledPlugins(deps.config).includes(name)) requireManifest(name, deps);
  const { changed } = disablePlugin(deps.configFile, name);
  deps.log?.info("plugin disabled", { plugin: name, changed });
  const notes = changed ? [] : [`${name} was not enabled`];
  return { text: row(name, "disabled"), json: { plugin: name, enabled: false, changed }, notes };
}

function authState(name: string, type: string, manifest: ManifestView | undefined, deps: SettingsCliDeps): string {
  if (type === "none") return "not_needed";
  if (type === "oauth2") {
    if (deps.oauthState) return deps.oauthState(name);
    const provider = manifest?.auth.provider;
    return provider && deps.config.fermix_core?.oauth?.[provider]?.client_id
      ? "client_configured"
      : "needs_client_config";
  }
  return pluginSecretState(deps.config, deps.store, name);
}

function requireApiKey(name: string, manifest: ManifestView) {
  const type = manifest.auth.type;
  if (type === "api_key") return;
  const fix = type === "oauth2" ? `connect it with fermix plugins auth login ${name}` : "it needs no credential";
  throw InvalidPluginSetting(`${name} does not use an api_key secret; ${fix}`, { plugin: name });
}

function requireManifest(name: string, deps: SettingsCliDeps): ManifestView {
  const manifest = deps.manifestFor(name);
  if (!manifest) throw unknownPlugin(name, deps);
  return manifest;
}

function requireKnown(name: string, deps: SettingsCliDeps) {
  if (deps.manifestFor(name) || deps.config.fermix_core?.plugin_secrets?.[name] !== undefined) return;
  throw unknownPlugin(name, deps);
}

function unknownPlugin(name: string, deps: SettingsCliDeps) {
  const known = [...(deps.known ?? [])].sort();
  const listed = known.length ? ` (known: ${known.join(", ")})` : "";
  return UnknownPlugin(`unknown plugin "${name}"${listed}`, { name, known });
}

function everyPlugin(deps: SettingsCliDeps): string[] {
  const secrets = Object.keys(deps.config.fermix_core?.plugin_secrets ?? {});
  return [...new Set([...(deps.known ?? []), ...enabledPlugins(deps.config), ...secrets])].sort();
}

function need(required: boolean): string {
  return required ? "required" : "optional";
}

function row(...cells: string[]): string {
  return `${cells.join("\t")}\n`;
}
