/**
 * The keyring slot of every secret config.toml can hold as "@keyring": the env-style name its reader resolves
 * it under, the file name in the file store, and what errors name instead of the value. One place, so the
 * writer (setup, auth set, --migrate-secrets) and each reader always agree.
 */

/** A provider's API key: its own env var name (OPENAI_API_KEY), or `<ID>_API_KEY`. */
export function providerKeySlot(d: { id: string; env: { apiKey?: string } }): string {
  return d.env.apiKey ?? `${d.id.toUpperCase()}_API_KEY`;
}

/** A plugin's api_key secret: `PLUGIN_SLACK_API_KEY`. */
export function pluginSecretSlot(name: string): string {
  return `PLUGIN_${name.toUpperCase()}_API_KEY`;
}

/** An OAuth client's secret under [fermix_core.oauth.<provider>]: `OAUTH_GOOGLE_CLIENT_SECRET`. */
export function oauthClientSecretSlot(provider: string): string {
  return `OAUTH_${provider.toUpperCase()}_CLIENT_SECRET`;
}

/** [fermix_core.tools.web_search] api_key (Brave). */
export const BRAVE_KEY_SLOT = "BRAVE_API_KEY";
