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

/**
 * [fermix_core.tools.web_search] api_key's slot for the configured backend: each vendor's key keeps its own
 * slot (and env var), so switching backends never hands one vendor another's key.
 */
export function webSearchKeySlot(backend: "brave" | "exa" | "tavily" | "firecrawl"): string {
  return backend === "brave" ? BRAVE_KEY_SLOT : `${backend.toUpperCase()}_API_KEY`;
}

/** [fermix_core.tools.generate_image] google_api_key (the google image backend has no chat provider). */
export const GOOGLE_IMAGE_KEY_SLOT = "GOOGLE_IMAGE_API_KEY";

/**
 * A [fermix_core.transcription] key: the openai and xai ones have their own slots (they override the chat key,
 * which keeps OPENAI_API_KEY / XAI_API_KEY); Deepgram has no chat key to collide with.
 */
export function transcriptionKeySlot(backend: "openai" | "xai" | "deepgram"): string {
  return backend === "deepgram" ? "DEEPGRAM_API_KEY" : `${backend.toUpperCase()}_TRANSCRIPTION_API_KEY`;
}

/** [fermix_channels.telegram] bot_token: a keyring slot only (never an environment variable: see the adapter). */
export const TELEGRAM_BOT_TOKEN_SLOT = "TELEGRAM_BOT_TOKEN";

/** [fermix_channels.discord] bot_token ("@keyring"); the DISCORD_BOT_TOKEN environment variable overlays it. */
export const DISCORD_BOT_TOKEN_SLOT = "DISCORD_BOT_TOKEN";

/** [fermix_channels.slack]'s secrets ("@keyring"); SLACK_BOT_TOKEN, SLACK_APP_TOKEN, SLACK_SIGNING_SECRET overlay them. */
export const SLACK_SECRET_SLOTS = {
  bot_token: "SLACK_BOT_TOKEN",
  app_token: "SLACK_APP_TOKEN",
  signing_secret: "SLACK_SIGNING_SECRET",
} as const;
