import { parse } from "smol-toml";
import { parseConfig } from "../../config/load.ts";
import type { Config } from "../../config/schema.ts";
import { pluginSecretSlot } from "../../config/secret-slots.ts";
import type { SecretStore } from "../../config/secret-store.ts";
import { isEnvReference } from "../../config/secrets.ts";
import { removeStatement, tomlString } from "../../config/toml-text.ts";
import { readText } from "../../runtime/files.ts";
import { checkPluginName, edit, openTable, type PluginEdit } from "./plugin-config.ts";

/**
 * A plugin's api_key secret: the value goes to the secret store (OS keyring, else the 0600 file store)
 * and config.toml only says where — `[fermix_core.plugin_secrets] <name> = "@keyring"`. The value never
 * touches config.toml, a return value or an error message.
 */
const SECRETS = "fermix_core.plugin_secrets";
const KEYRING = "@keyring";

/**
 * `set`: the secret store has it, or config.toml points elsewhere (an env var, a command, a file).
 * `plaintext`: config.toml holds the value itself; it works, but `auth set` should move it to the keychain.
 */
export type PluginSecretState = "set" | "missing" | "plaintext";

export async function setPluginSecret(
  configFile: string,
  store: SecretStore,
  name: string,
  value: string,
): Promise<PluginEdit & { where: "keyring" | "file" }> {
  checkPluginName(name);
  // Check the file can take the reference before the secret goes anywhere, so a config.toml the user has to
  // fix first does not leave an orphaned keyring entry behind.
  const before = await readText(configFile).catch(() => "");
  parseConfig(before, configFile);
  openTable(before, SECRETS, configFile);
  const { where } = await store.store(pluginSecretSlot(name), value);
  const result = edit(
    configFile,
    SECRETS,
    (text, file) => {
      const doc = openTable(text, SECRETS, file);
      const current = doc.statement(name);
      if (current && (parse(`v = ${current.value}`) as { v: unknown }).v === KEYRING) return null;
      // Replacing a plaintext value here is how a secret moves out of config.toml.
      return doc.setValue(name, tomlString(KEYRING), "end");
    },
    (config) => config.fermix_core?.plugin_secrets?.[name] === KEYRING,
  );
  return { ...result, where };
}

/** Removes the stored secret and the config.toml entry (whatever it held, plaintext included). */
export async function clearPluginSecret(configFile: string, store: SecretStore, name: string): Promise<PluginEdit> {
  checkPluginName(name);
  await store.clear(pluginSecretSlot(name));
  return edit(
    configFile,
    SECRETS,
    (text, file) => {
      const current = openTable(text, SECRETS, file).statement(name);
      return current ? removeStatement(text, current) : null;
    },
    (config) => config.fermix_core?.plugin_secrets?.[name] === undefined,
  );
}

/** Whether the plugin's secret is there for the runtime to resolve, without resolving (or printing) it. */
export function pluginSecretState(config: Config, store: SecretStore, name: string): PluginSecretState {
  const ref = config.fermix_core?.plugin_secrets?.[name];
  if (ref === undefined) return "missing";
  if (ref === KEYRING) return store.has(pluginSecretSlot(name)) ? "set" : "missing";
  if (typeof ref === "string" && !isEnvReference(ref)) return "plaintext";
  return "set";
}
