/*
 * The environment variables a platform documents as overlays on its [fermix_channels.<name>] table, read once when
 * the daemon (or doctor) builds the channel. One entry per platform, beside its registry line; a platform that is
 * not listed takes nothing from the environment (Telegram's bot token never does: one exported token made two
 * installs poll the same bot).
 */

/** How a variable's value becomes the key's: a secret (read through the env reference), text, or an id list. */
export type OverlayKind = "secret" | "text" | "ids";

export const CHANNEL_ENV: Record<string, Record<string, { key: string; kind: OverlayKind }>> = {
  discord: {
    DISCORD_BOT_TOKEN: { key: "bot_token", kind: "secret" },
    DISCORD_BOT_USER_ID: { key: "bot_user_id", kind: "text" },
    DISCORD_ALLOWED_USER_IDS: { key: "allowed_user_ids", kind: "ids" },
  },
  slack: {
    SLACK_BOT_TOKEN: { key: "bot_token", kind: "secret" },
    SLACK_APP_TOKEN: { key: "app_token", kind: "secret" },
    SLACK_SIGNING_SECRET: { key: "signing_secret", kind: "secret" },
    SLACK_ALLOWED_USER_IDS: { key: "allowed_user_ids", kind: "ids" },
    SLACK_MODE: { key: "mode", kind: "text" },
  },
  whatsapp: {
    WHATSAPP_ACCESS_TOKEN: { key: "access_token", kind: "secret" },
    WHATSAPP_PHONE_NUMBER_ID: { key: "phone_number_id", kind: "text" },
    WHATSAPP_VERIFY_TOKEN: { key: "verify_token", kind: "secret" },
    WHATSAPP_APP_SECRET: { key: "app_secret", kind: "secret" },
    WHATSAPP_ALLOWED_SENDER_IDS: { key: "allowed_sender_ids", kind: "ids" },
  },
  signal: {
    SIGNAL_ACCOUNT: { key: "account", kind: "text" },
    SIGNAL_CLI_PATH: { key: "cli_path", kind: "text" },
    SIGNAL_ALLOWED_SENDER_IDS: { key: "allowed_sender_ids", kind: "ids" },
  },
};

/**
 * The table with the environment laid over it: a set variable wins over config.toml. A secret becomes a reference
 * to its variable (`{source = "env"}`), so its value is read where secrets are read and never copied into the
 * config; an id list is comma-separated, and "" is an explicit empty list.
 */
export function withEnvOverlay(
  name: string,
  block: Record<string, unknown>,
  env: Readonly<Record<string, string | undefined>>,
): Record<string, unknown> {
  const overlay = CHANNEL_ENV[name];
  if (!overlay) return block;
  const out = { ...block };
  for (const [variable, { key, kind }] of Object.entries(overlay)) {
    const value = env[variable];
    if (value === undefined) continue;
    if (kind === "ids") {
      out[key] = value
        .split(",")
        .map((id) => id.trim())
        .filter(Boolean);
    } else if (value.trim()) {
      out[key] = kind === "secret" ? { source: "env", name: variable } : value.trim();
    }
  }
  return out;
}
