import { parseConfig } from "../../config/load.ts";
import type { Config } from "../../config/schema.ts";
import { oauthClientSecretSlot } from "../../config/secret-slots.ts";
import type { SecretStore } from "../../config/secret-store.ts";
import { isEnvReference } from "../../config/secrets.ts";
import { defineError } from "../../error.ts";
import { readText } from "../../runtime/files.ts";
import { setKey } from "../../setup/config-edit.ts";
import { edit, openTable, type PluginEdit } from "../settings/plugin-config.ts";
import { oauthProvider } from "./providers.ts";

/**
 * A provider's OAuth client, `[fermix_core.oauth.<provider>] client_id` and `client_secret`: the id goes into
 * config.toml as written, the secret into the secret store (OS keyring, else the 0600 file store) with
 * `client_secret = "@keyring"` in its place — as `fermix plugins auth set` does for an api_key. The secret
 * never comes back out: callers learn only whether it is there.
 */
export const InvalidOAuthClient = defineError<{ provider: string; field: string }>("invalid_argument");

const KEYRING = "@keyring";
// Client ids are opaque printable tokens (GitHub Iv1.…, Google …apps.googleusercontent.com, Notion UUIDs).
const CLIENT_ID = /^[\x21-\x7e]{1,512}$/;

export type ClientSecretState = "set" | "missing" | "plaintext";

/** Writes the client id and, when given, the secret; a blank secret keeps the one already set. */
export async function setOAuthClient(
  configFile: string,
  store: SecretStore,
  input: { provider: string; clientId: string; clientSecret?: string },
): Promise<PluginEdit & { where?: "keyring" | "file" }> {
  const { provider } = input;
  oauthProvider(provider);
  const clientId = input.clientId.trim();
  if (!CLIENT_ID.test(clientId)) {
    throw InvalidOAuthClient(`the ${provider} client id is missing or has spaces; paste it as the provider shows it`, {
      provider,
      field: "client_id",
    });
  }
  const secret = input.clientSecret?.trim() || undefined;
  const table = `fermix_core.oauth.${provider}`;
  // The file must take the edit before the secret goes anywhere, so a config.toml to fix first orphans nothing.
  const before = await readText(configFile).catch(() => "");
  const config = parseConfig(before, configFile);
  openTable(before, table, configFile);
  if (!secret && config.fermix_core?.oauth?.[provider]?.client_secret === undefined) {
    throw InvalidOAuthClient(`type the ${provider} client secret too (none is stored yet)`, {
      provider,
      field: "client_secret",
    });
  }
  const where = secret ? (await store.store(oauthClientSecretSlot(provider), secret)).where : undefined;
  const result = edit(
    configFile,
    table,
    (text, file) => {
      let next = setKey(text, table, "client_id", clientId, file);
      // Replacing a plaintext value here is how a client secret moves out of config.toml.
      if (secret) next = setKey(next, table, "client_secret", KEYRING, file);
      return next === text ? null : next;
    },
    (after) => {
      const block = after.fermix_core?.oauth?.[provider];
      return block?.client_id === clientId && (!secret || block.client_secret === KEYRING);
    },
  );
  return { ...result, ...(where ? { where } : {}) };
}

/** Whether the provider's client secret is there for a login to resolve, without resolving (or showing) it. */
export function oauthClientState(
  config: Config,
  store: SecretStore,
  provider: string,
): { clientId?: string; secret: ClientSecretState } {
  const block = config.fermix_core?.oauth?.[provider];
  const ref = block?.client_secret;
  let secret: ClientSecretState = "set";
  if (ref === undefined) secret = "missing";
  else if (ref === KEYRING) secret = store.has(oauthClientSecretSlot(provider)) ? "set" : "missing";
  else if (typeof ref === "string" && !isEnvReference(ref)) secret = "plaintext";
  return { ...(block?.client_id ? { clientId: block.client_id } : {}), secret };
}
