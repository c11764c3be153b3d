import { existsSync, readFileSync } from "node:fs";
import { parseConfig } from "../config/load.ts";
import { ConfigEditFailed } from "../config/sandbox-edit.ts";
import type { Config } from "../config/schema.ts";
import {
  BRAVE_KEY_SLOT,
  oauthClientSecretSlot,
  pluginSecretSlot,
  providerKeySlot,
  webSearchKeySlot,
} from "../config/secret-slots.ts";
import type { SecretStore } from "../config/secret-store.ts";
import { isEnvReference, resolveSecret, type SecretDeps } from "../config/secrets.ts";
import { tableDoc } from "../config/toml-text.ts";
import { writePrivateFileAtomically } from "../fs/write-private-file.ts";
import { findProvider } from "../providers/descriptors.ts";

/** A secret written as plain text in config.toml: where it sits, and the keyring slot it moves to. */
export type PlainSecret = { table: string; key: string; slot: string };

const isPlain = (ref: unknown): ref is string => typeof ref === "string" && ref !== "@keyring" && !isEnvReference(ref);

/**
 * Every secret config.toml holds in plain text, under the slot its reader uses (the same names routes.ts,
 * the plugin runtime, OAuth and web_search resolve "@keyring" with).
 */
export function plaintextSecrets(config: Config): PlainSecret[] {
  const core = config.fermix_core;
  const found: PlainSecret[] = [];
  for (const [id, block] of Object.entries(core?.providers ?? {})) {
    const d = findProvider(id);
    if (!d || !isPlain((block as { api_key?: unknown }).api_key)) continue;
    found.push({
      table: `fermix_core.providers.${id}`,
      key: "api_key",
      slot: providerKeySlot(d),
    });
  }
  for (const [name, ref] of Object.entries(core?.plugin_secrets ?? {})) {
    if (isPlain(ref)) found.push({ table: "fermix_core.plugin_secrets", key: name, slot: pluginSecretSlot(name) });
  }
  for (const [provider, client] of Object.entries(core?.oauth ?? {})) {
    if (isPlain(client.client_secret)) {
      found.push({
        table: `fermix_core.oauth.${provider}`,
        key: "client_secret",
        slot: oauthClientSecretSlot(provider),
      });
    }
  }
  if (isPlain(core?.tools?.web_search?.api_key)) {
    // The key goes to the configured backend's own slot, where web_search resolves "@keyring" for it.
    const backend = core?.tools?.web_search?.backend;
    const slot = backend && backend !== "duckduckgo" ? webSearchKeySlot(backend) : BRAVE_KEY_SLOT;
    found.push({ table: "fermix_core.tools.web_search", key: "api_key", slot });
  }
  return found;
}

export type MigrationResult = {
  moved: Array<PlainSecret & { where: "keyring" | "file" }>;
  failed: Array<PlainSecret & { reason: string }>;
};

/**
 * `fermix setup --migrate-secrets`: each plaintext secret goes to the keychain (or the 0600 file store), is
 * read back through the same resolver the daemon uses, and only then does its line become "@keyring".
 * config.toml is edited in place (comments and other keys kept) and checked before it is replaced; a secret
 * that could not be stored and read back keeps its plaintext line, and says so.
 */
export async function migrateSecrets(deps: {
  file: string;
  store: SecretStore;
  secrets: SecretDeps;
}): Promise<MigrationResult> {
  const moved: MigrationResult["moved"] = [];
  const failed: MigrationResult["failed"] = [];
  if (!existsSync(deps.file)) return { moved, failed };
  const before = readFileSync(deps.file, "utf8");
  const config = parseConfig(before, deps.file);
  let text = before;
  for (const secret of plaintextSecrets(config)) {
    const value = valueAt(config, secret);
    try {
      const { where } = await deps.store.store(secret.slot, value);
      if (resolveSecret("@keyring", secret.slot, deps.secrets) !== value) throw new Error("it did not read back");
      const doc = tableDoc(text, secret.table);
      if (doc.definedElsewhere)
        throw new Error(`[${secret.table}] is written inline or with dotted keys; edit it by hand`);
      text = doc.setValue(secret.key, '"@keyring"', "end");
      moved.push({ ...secret, where });
    } catch (err) {
      failed.push({ ...secret, reason: (err as Error).message });
    }
  }
  if (text !== before) {
    const after = parseConfig(text, deps.file);
    if (plaintextSecrets(after).length !== failed.length) {
      throw ConfigEditFailed(`${deps.file}: the edit did not take effect; the file was left unchanged.`, {
        file: deps.file,
      });
    }
    writePrivateFileAtomically(deps.file, text);
  }
  return { moved, failed };
}

function valueAt(config: Config, secret: PlainSecret): string {
  const core = config.fermix_core!;
  if (secret.table === "fermix_core.plugin_secrets") return core.plugin_secrets![secret.key] as string;
  if (secret.table === "fermix_core.tools.web_search") return core.tools!.web_search!.api_key as string;
  const [, section, name] = secret.table.split(".");
  if (section === "oauth") return core.oauth![name!]!.client_secret as string;
  return (core.providers as Record<string, { api_key?: unknown }>)[name!]!.api_key as string;
}
