import { parse } from "smol-toml";
import { ConfigEditFailed, editConfigText } from "../../config/sandbox-edit.ts";
import type { Config } from "../../config/schema.ts";
import { insertElement, readArray, removeElement, tableDoc, tomlString } from "../../config/toml-text.ts";
import { defineError } from "../../error.ts";

/**
 * `fermix plugins enable|disable|config set`: text edits of config.toml's `[fermix_core.plugins]` table
 * (the `enabled` list) and of `[fermix_core.plugins.<name>]` (the manifest-declared values). Like the
 * sandbox edits, only the touched value changes; comments and layout elsewhere stay byte for byte, and
 * the result is re-parsed before it atomically replaces the file (which is created when missing).
 */
export const InvalidPluginSetting = defineError<{ plugin: string; key?: string; declared?: string[] }>(
  "invalid_argument",
);

export type DeclaredSetting = { key: string; kind?: "text" | "boolean"; required?: boolean };
export type PluginEdit = { file: string; changed: boolean };

const PLUGINS = "fermix_core.plugins";
const NAME = /^[a-z][a-z0-9_]{0,63}$/;
// [fermix_core.plugins] holds these keys next to the per-plugin tables, so no plugin can be called that.
const RESERVED = new Set(["enabled", "dev_local", "discovery_timeout_seconds", "discovery_attempts"]);

export function checkPluginName(name: string): string {
  if (!NAME.test(name) || RESERVED.has(name)) {
    throw InvalidPluginSetting(`"${name}" is not a plugin name (lower-case letters, digits and _)`, { plugin: name });
  }
  return name;
}

/** Adds `name` to `[fermix_core.plugins] enabled`. */
export function enablePlugin(configFile: string, name: string): PluginEdit {
  checkPluginName(name);
  return edit(
    configFile,
    PLUGINS,
    (text, file) => {
      const doc = openTable(text, PLUGINS, file);
      const list = enabledList(text, doc.statement("enabled")?.valueStart, file);
      if (list?.elements.some((e) => e.value === name)) return null;
      if (list) return insertElement(text, list, tomlString(name), doc.nl);
      return doc.addKey(`enabled = [${tomlString(name)}]`, "start");
    },
    (config) => enabledPlugins(config).includes(name),
  );
}

/** Removes `name` from `[fermix_core.plugins] enabled`; its settings and secret stay for a later enable. */
export function disablePlugin(configFile: string, name: string): PluginEdit {
  return edit(
    configFile,
    PLUGINS,
    (text, file) => {
      const doc = openTable(text, PLUGINS, file);
      const list = enabledList(text, doc.statement("enabled")?.valueStart, file);
      const matches = list?.elements.filter((e) => e.value === name) ?? [];
      // Last first, so the spans of the earlier ones stay where they were.
      return matches.length ? matches.reverse().reduce((t, e) => removeElement(t, e), text) : null;
    },
    (config) => !enabledPlugins(config).includes(name),
  );
}

/**
 * Sets one manifest-declared value in `[fermix_core.plugins.<name>]`: a quoted string, or a TOML boolean
 * for a `boolean` key. The key is matched without regard to case and written as the manifest spells it.
 */
export function setPluginConfig(
  configFile: string,
  name: string,
  key: string,
  value: string,
  declared: readonly DeclaredSetting[],
): PluginEdit & { key: string; value: string | boolean } {
  checkPluginName(name);
  const entry = declared.find((d) => d.key.toUpperCase() === key.toUpperCase());
  if (!entry) {
    const keys = declared.map((d) => d.key);
    const known = keys.length ? `its settings are ${keys.join(", ")}` : "it declares no settings";
    throw InvalidPluginSetting(`${name} has no setting ${key}; ${known}`, { plugin: name, key, declared: keys });
  }
  let typed: string | boolean = value;
  if (entry.kind === "boolean") {
    if (value !== "true" && value !== "false") {
      throw InvalidPluginSetting(`${name} ${entry.key} is true or false, not "${value}"`, { plugin: name, key });
    }
    typed = value === "true";
  }
  const table = `${PLUGINS}.${name}`;
  const literal = typeof typed === "boolean" ? String(typed) : tomlString(typed);
  const result = edit(
    configFile,
    table,
    (text, file) => {
      const doc = openTable(text, table, file);
      const current = doc.statement(entry.key);
      if (current && (parse(`v = ${current.value}`) as { v: unknown }).v === typed) return null;
      return doc.setValue(entry.key, literal, "end");
    },
    (config) => pluginConfigValues(config, name)[entry.key] === typed,
  );
  return { ...result, key: entry.key, value: typed };
}

export function enabledPlugins(config: Config): string[] {
  return config.fermix_core?.plugins?.enabled ?? [];
}

/** The values in `[fermix_core.plugins.<name>]`, which reach the plugin (and an mcp process's env) as is. */
export function pluginConfigValues(config: Config, name: string): Record<string, string | boolean> {
  if (RESERVED.has(name)) return {};
  const plugins = config.fermix_core?.plugins as Record<string, unknown> | undefined;
  const table = plugins?.[name];
  return table && typeof table === "object" && !Array.isArray(table) ? (table as Record<string, string | boolean>) : {};
}

/** Shared by the secret edits: one table's text edit through the config edit cycle. */
export function edit(
  file: string,
  table: string,
  change: (text: string, file: string) => string | null,
  applied: (config: Config) => boolean,
): PluginEdit {
  const { changed } = editConfigText(file, table, (text) => change(text, file), applied);
  return { file, changed };
}

export function openTable(text: string, table: string, file: string) {
  const doc = tableDoc(text, table);
  if (doc.definedElsewhere) {
    throw ConfigEditFailed(
      `${file}: [${table}] is also written as "${doc.definedElsewhere}" (dotted keys or an inline table); edit it by hand.`,
      { file },
    );
  }
  return doc;
}

function enabledList(text: string, at: number | undefined, file: string) {
  if (at === undefined) return undefined;
  if (text[at] !== "[") {
    throw ConfigEditFailed(`${file}: [${PLUGINS}] enabled is not a list; edit it by hand.`, { file });
  }
  return readArray(text, at);
}
