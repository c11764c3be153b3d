import type { Config } from "../config/schema.ts";
import type { ChannelAdapter, ChannelDeps } from "./channel.ts";

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
