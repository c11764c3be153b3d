import type { Config } from "../config/schema.ts";
import type { Dedupe } from "../gateway/webhooks/dedupe.ts";
import type { WebhookRegistry } from "../gateway/webhooks/webhook-listener.ts";
import type { ChannelAdapter } from "./channel.ts";

export type ChannelDeps = {
  /** The channel's own [fermix_channels.<name>] table, validated. */
  config: Record<string, unknown>;
  /** Resolves a secret reference ("@keyring", "$ENV", plaintext) for a slot such as TELEGRAM_BOT_TOKEN. */
  resolveSecret(ref: unknown, slot: string): string;
  log: { info(msg: string): void; warn(msg: string): void; error(msg: string): void };
  now: () => number;
  /** The daemon's environment, for the platforms' documented env overlays (never a Telegram bot token). */
  env: Readonly<Record<string, string | undefined>>;
  /** Webhook routes on the separate loopback webhook port; it listens only once a channel registers one. */
  webhooks: WebhookRegistry;
  /** (channel, message id) seen in the last 24 h: a re-delivered webhook makes one turn. */
  dedupe: Dedupe;
};

/**
 * Every chat platform, one line each. Each loads only when its channel is enabled, so a daemon without channels
 * never pays for a platform SDK.
 */
export const CHANNELS: Record<string, (deps: ChannelDeps) => Promise<ChannelAdapter>> = {
  telegram: (deps) => import("./telegram/telegram-channel.ts").then((m) => m.createTelegramChannel(deps)),
  discord: (deps) => import("./discord/discord-channel.ts").then((m) => m.createDiscordChannel(deps)),
  signal: (deps) => import("./signal/signal-channel.ts").then((m) => m.createSignalChannel(deps)),
  whatsapp: (deps) => import("./whatsapp/whatsapp-channel.ts").then((m) => m.createWhatsAppChannel(deps)),
  slack: (deps) => import("./slack/slack-channel.ts").then((m) => m.createSlackChannel(deps)),
};

/** The channels config.toml enables, in registry order. */
export function enabledChannels(config: Config): string[] {
  const blocks = (config.fermix_channels ?? {}) as Record<string, { enabled?: boolean } | undefined>;
  return Object.keys(CHANNELS).filter((name) => blocks[name]?.enabled === true);
}

/** Deps for a one-off use of an adapter (doctor's check, setup's token test): no webhooks are served. */
export function oneOffDeps(base: Omit<ChannelDeps, "webhooks" | "dedupe" | "env"> & Partial<ChannelDeps>): ChannelDeps {
  return {
    env: {},
    webhooks: { register() {} },
    dedupe: { first: () => true, forget() {} },
    ...base,
  };
}
