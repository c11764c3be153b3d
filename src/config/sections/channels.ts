import * as v from "valibot";
import { lazySchema } from "../../valibot-lazy.ts";
import { SecretRef } from "./secret-ref.ts";

/** A platform user id: Telegram's are integers, written in TOML as an integer or a string; kept as a string. */
const PlatformId = lazySchema(() =>
  v.pipe(
    v.union([v.pipe(v.number(), v.integer(), v.transform(String)), v.pipe(v.string(), v.trim(), v.minLength(1))]),
    v.string(),
  ),
);

/** What every chat channel takes: who may talk to it, which commands guests get, how replies stream. */
const channelBase = () => ({
  enabled: v.optional(v.boolean()),
  owner_user_id: v.optional(PlatformId),
  command_allowlist: v.optional(v.array(v.string())),
  streaming: v.optional(v.picklist(["off", "draft", "block"])),
  album_debounce_ms: v.optional(v.pipe(v.number(), v.integer(), v.minValue(0), v.maxValue(60_000))),
  /** Older messages found when fermix starts get a short "arrived while fermix was not running" reply, no turn. */
  backlog_max_age_seconds: v.optional(
    v.pipe(
      v.number("a number of seconds"),
      v.integer("a whole number of seconds"),
      v.minValue(0),
      v.maxValue(7 * 86_400),
    ),
  ),
});

export const TelegramConfig = lazySchema(() =>
  v.strictObject({
    ...channelBase(),
    // Never from an environment variable: one exported token made two installs poll the same bot (409s).
    bot_token: v.optional(SecretRef),
    allowed_user_ids: v.optional(v.array(PlatformId)),
    bot_name: v.optional(v.string()),
    api_base_url: v.optional(v.pipe(v.string(), v.url("must be an absolute URL such as https://api.telegram.org"))),
  }),
);
export type TelegramConfig = v.InferOutput<typeof TelegramConfig>;

/**
 * A Signal address: a phone number in international form, or an account's UUID. A number written as a bare TOML
 * integer (owner_user_id = +15551234567) arrives without its "+", which signal-cli always gives: put back here.
 */
const SignalAddress = lazySchema(() =>
  v.pipe(
    v.union([
      v.pipe(
        v.number(),
        v.integer(),
        v.minValue(1),
        v.transform((n) => `+${n}`),
      ),
      v.pipe(v.string(), v.trim(), v.minLength(1)),
    ]),
    v.string(),
  ),
);

export const SignalConfig = lazySchema(() =>
  v.strictObject({
    ...channelBase(),
    owner_user_id: v.optional(SignalAddress),
    allowed_sender_ids: v.optional(v.array(SignalAddress)),
    // The account registered or linked in signal-cli that fermix answers as (a numberless account: its UUID).
    account: v.optional(
      v.pipe(
        v.string(),
        v.trim(),
        v.regex(
          /^(\+[1-9]\d{5,17}|[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12})$/i,
          "the signal-cli account: its phone number in international form, such as +15551234567",
        ),
      ),
    ),
    cli_path: v.optional(v.pipe(v.string(), v.trim(), v.minLength(1))),
    // signal-cli's --config directory, where it keeps the account and the attachments it received.
    data_dir: v.optional(v.pipe(v.string(), v.trim(), v.minLength(1))),
  }),
);
export type SignalConfig = v.InferOutput<typeof SignalConfig>;

export const DiscordConfig = lazySchema(() =>
  v.strictObject({
    ...channelBase(),
    bot_token: v.optional(SecretRef),
    // The bot's own user id: mentions of it address the bot; checked against GET /users/@me (filled in by setup).
    bot_user_id: v.optional(PlatformId),
    allowed_user_ids: v.optional(v.array(PlatformId)),
    // REST base without the version (https://discord.com/api) and the gateway's websocket URL, for a test endpoint.
    api_base_url: v.optional(v.pipe(v.string(), v.url("must be an absolute URL such as https://discord.com/api"))),
    gateway_url: v.optional(
      v.pipe(
        v.string(),
        v.url("must be an absolute URL such as wss://gateway.discord.gg"),
        v.regex(/^wss?:\/\//i, "a websocket URL starting with wss:// or ws://"),
      ),
    ),
  }),
);
export type DiscordConfig = v.InferOutput<typeof DiscordConfig>;

export const WhatsAppConfig = lazySchema(() =>
  v.strictObject({
    ...channelBase(),
    // The Cloud API's permanent (system user) access token, the app secret that signs webhooks, and the verify token
    // Meta echoes when the webhook is registered.
    access_token: v.optional(SecretRef),
    app_secret: v.optional(SecretRef),
    verify_token: v.optional(SecretRef),
    phone_number_id: v.optional(PlatformId),
    graph_version: v.optional(v.pipe(v.string(), v.regex(/^v\d+\.\d+$/, "a Graph API version such as v25.0"))),
    allowed_sender_ids: v.optional(v.array(PlatformId)),
    api_base_url: v.optional(v.pipe(v.string(), v.url("must be an absolute URL such as https://graph.facebook.com"))),
  }),
);
export type WhatsAppConfig = v.InferOutput<typeof WhatsAppConfig>;

export const SlackConfig = lazySchema(() =>
  v.strictObject({
    ...channelBase(),
    // Socket Mode (the default) needs the app-level token and no public URL; webhook mode needs the signing secret.
    mode: v.optional(v.picklist(["socket", "webhook"])),
    bot_token: v.optional(SecretRef),
    app_token: v.optional(SecretRef),
    signing_secret: v.optional(SecretRef),
    allowed_user_ids: v.optional(v.array(PlatformId)),
    // The Web API's base (Socket Mode's wss URL comes from its apps.connections.open), for a test endpoint.
    api_base_url: v.optional(v.pipe(v.string(), v.url("must be an absolute URL such as https://slack.com/api/"))),
  }),
);
export type SlackConfig = v.InferOutput<typeof SlackConfig>;

/** [fermix_channels]: the other platforms' blocks stay opaque tables until their adapters arrive. */
export const ChannelsSection = lazySchema(() =>
  v.objectWithRest(
    {
      telegram: v.optional(TelegramConfig),
      discord: v.optional(DiscordConfig),
      whatsapp: v.optional(WhatsAppConfig),
      signal: v.optional(SignalConfig),
      slack: v.optional(SlackConfig),
    },
    v.record(v.string(), v.unknown()),
  ),
);
