import type { Config } from "../config/schema.ts";
import { oauthClientSecretSlot, pluginSecretSlot } from "../config/secret-slots.ts";
import type { TokenStore } from "./oauth/token-store.ts";
import type { PluginState } from "./plugin-host-contract.ts";
import type { PluginCredentials } from "./plugin-tools.ts";

export type CredentialDeps = {
  tokens: TokenStore;
  log: { warn(msg: string): void };
  resolveSecret(ref: NonNullable<NonNullable<Config["fermix_core"]>["plugin_secrets"]>[string], slot: string): string;
};

/** An HTTP-rail plugin's credentials under `config`: its API key or OAuth token, and a refresh after a 401. */
export function pluginCredentials(deps: CredentialDeps, config: Config): Required<PluginCredentials> {
  return {
    credential: async (plugin) => credentialOf(deps, plugin, config),
    refresh: async (plugin) => refreshOf(deps, plugin, config),
  };
}

async function credentialOf(deps: CredentialDeps, plugin: PluginState, config: Config): Promise<string | undefined> {
  const type = plugin.manifest?.auth.type;
  if (type === "api_key") {
    const ref = config.fermix_core?.plugin_secrets?.[plugin.name] ?? "@keyring";
    try {
      return deps.resolveSecret(ref, pluginSecretSlot(plugin.name));
    } catch {
      return undefined;
    }
  }
  if (type === "oauth2") return deps.tokens.get(plugin.name)?.access_token;
  return undefined;
}

async function refreshOf(deps: CredentialDeps, plugin: PluginState, config: Config): Promise<string | undefined> {
  const provider = (plugin.manifest?.auth as { provider?: string } | undefined)?.provider;
  const client = provider ? config.fermix_core?.oauth?.[provider] : undefined;
  if (!client?.client_id || !client.client_secret) return undefined;
  try {
    const { refresh: refreshToken } = await import("./oauth/login.ts");
    const token = await refreshToken(plugin.name, {
      clientId: client.client_id,
      clientSecret: deps.resolveSecret(client.client_secret, oauthClientSecretSlot(provider!)),
      store: deps.tokens,
    });
    return token.access_token;
  } catch (err) {
    deps.log.warn(`refreshing ${plugin.name}'s token failed: ${(err as Error).message}`);
    return undefined;
  }
}
