import { existsSync, readFileSync } from "node:fs";
import { loadConfig, parseConfig } from "../config/load.ts";
import type { FermixPaths } from "../config/paths.ts";
import { ConfigEditFailed, editConfigText } from "../config/sandbox-edit.ts";
import type { Config } from "../config/schema.ts";
import { createSecretStore, type SecretStore } from "../config/secret-store.ts";
import { removeStatement, tableDoc } from "../config/toml-text.ts";
import { setKey } from "../setup/config-edit.ts";

/** One key of a config.toml table; `value: undefined` removes the key. */
export type KeyEdit = { table: string; key: string; value: string | boolean | number | undefined };

/** A secret typed into a page: stored under `slot`, and config.toml's `table`.`key` points at it as "@keyring". */
export type SecretWrite = { table: string; key: string; slot: string; value: string };

export type ConfigWrites = {
  file: string;
  config(): Promise<Config>;
  /**
   * Edits config.toml in place (comments kept) as setup does: the edit is checked against the whole schema first,
   * then the secret (if any) goes to the secret store, then the file is replaced atomically. A refused edit stores
   * nothing and leaves the file byte for byte as it was.
   */
  apply(
    section: string,
    edits: KeyEdit[],
    secret: SecretWrite | undefined,
    applied: (c: Config) => boolean,
  ): Promise<{ changed: boolean; stored?: "keyring" | "file" }>;
};

export type ConfigWritesDeps = {
  paths: Pick<FermixPaths, "config" | "secrets">;
  /** Tests hand in a fake; by default the OS keyring with the file store behind it, as [fermix_core] secret_store says. */
  store?: (config: Config) => SecretStore;
};

/** The value at `table`.`key` of a parsed config ("fermix_core.tools.web_search", "api_key"). */
export function valueAt(config: Config, table: string, key: string): unknown {
  let node: unknown = config;
  for (const part of [...table.split("."), key]) {
    if (!node || typeof node !== "object") return undefined;
    node = (node as Record<string, unknown>)[part];
  }
  return node;
}

export function createConfigWrites(deps: ConfigWritesDeps): ConfigWrites {
  const file = deps.paths.config;
  const storeFor =
    deps.store ??
    ((config: Config) =>
      createSecretStore({
        secretsDir: deps.paths.secrets,
        profile: config.fermix_core?.profile,
        prefer: config.fermix_core?.secret_store === "file" ? "file" : undefined,
      }));

  const change = (edits: KeyEdit[], secret: SecretWrite | undefined) => (text: string) => {
    let out = text;
    for (const e of edits)
      out = e.value === undefined ? removeKey(out, e.table, e.key) : setKey(out, e.table, e.key, e.value, file);
    if (secret) out = setKey(out, secret.table, secret.key, "@keyring", file);
    return out === text ? null : out;
  };

  return {
    file,
    config: () => loadConfig(file),
    async apply(section, edits, secret, applied) {
      const edit = change(edits, secret);
      const check = (c: Config) => applied(c) && (!secret || valueAt(c, secret.table, secret.key) === "@keyring");
      // Checked before the secret is stored, so a file the owner must fix first leaves no orphan secret.
      const before = existsSync(file) ? readFileSync(file, "utf8") : "";
      const current = parseConfig(before, file);
      const after = edit(before);
      if (after !== null && !check(parseConfig(after, file))) {
        throw ConfigEditFailed(`${file}: the edit to [${section}] did not take effect; the file was left unchanged.`, {
          file,
        });
      }
      const stored = secret ? (await storeFor(current).store(secret.slot, secret.value)).where : undefined;
      const { changed } = editConfigText(file, section, edit, check);
      return { changed, ...(stored ? { stored } : {}) };
    },
  };

  function removeKey(text: string, table: string, key: string): string {
    const doc = tableDoc(text, table);
    if (doc.definedElsewhere) {
      throw ConfigEditFailed(`${file}: [${table}] is also written as "${doc.definedElsewhere}"; edit it by hand.`, {
        file,
      });
    }
    const statement = doc.statement(key);
    return statement ? removeStatement(text, statement) : text;
  }
}
