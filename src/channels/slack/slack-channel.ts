import { SLACK_SECRET_SLOTS } from "../../config/secret-slots.ts";
import type { SlackConfig } from "../../config/sections/channels.ts";
import { defineError } from "../../error.ts";
import type { ChannelAdapter, ChannelDeps, ChannelHealth, InboundMessage } from "../channel.ts";
import { errorFix, errorKind, SlackApiError } from "./api-errors.ts";
import { checkSlack } from "./check-auth.ts";
import { messageKey, parseEvent } from "./parse-event.ts";
import { SLACK_REACTIONS, slackReactionName } from "./reactions.ts";
import { SLACK_MAX_UPLOAD_BYTES, sendSlackFile } from "./send-file.ts";
import { deleteReply, editReply, sendReply } from "./send-reply.ts";
import { createSocketMode } from "./socket-mode.ts";
import { createSlackApi, DEFAULT_API_BASE, type SlackApi } from "./web-api.ts";
import { createSlackWebhookRoute } from "./webhook-route.ts";

export const SlackNotConfigured = defineError<{ missing?: string }>("slack_not_configured");
export const SlackTokenRejected = defineError<{ error: string }>("slack_token_rejected");
export const SlackReactionUnsupported = defineError<{ emoji: string }>("slack_reaction_unsupported");

const SETUP_HINT = "run `fermix setup --channel slack`, or set it in [fermix_channels.slack] in config.toml";

/**
 * The Slack adapter. Socket Mode by default (an app-level token; Slack is reached from here, so no public URL is
 * needed), or the Events API's signed webhooks with `mode = "webhook"` (POST /webhook/slack on the webhook port,
 * behind a tunnel). Either way DMs to the app and mentions of it come in (mentions answered in their thread), bots
 * are ignored, and replies go out as mrkdwn in 40,000-character messages through @slack/web-api; files through the
 * external upload flow, reactions by shortcode. No approve button: the tap-to-copy /confirm line stays. The tokens
 * are read here once and go nowhere but Slack's Authorization headers; every line this adapter logs is redacted.
 */
export async function createSlackChannel(deps: ChannelDeps): Promise<ChannelAdapter> {
  const config = deps.config as SlackConfig;
  const mode = (config.mode ?? "socket") as string;
  if (mode !== "socket" && mode !== "webhook") {
    throw SlackNotConfigured(
      `[fermix_channels.slack] mode must be "socket" or "webhook" (got ${JSON.stringify(mode)}; SLACK_MODE overlays it)`,
      { missing: "mode" },
    );
  }
  const secret = (ref: unknown, slot: string, key: string, why: string) => {
    if (ref === undefined) {
      throw SlackNotConfigured(`the Slack channel needs ${key} (${why}): ${SETUP_HINT}, or ${slot}`, { missing: key });
    }
    const value = deps.resolveSecret(ref, slot).trim();
    if (!value) throw SlackNotConfigured(`the Slack ${key} is empty: ${SETUP_HINT}`, { missing: key });
    return value;
  };
  const botToken = secret(
    config.bot_token,
    SLACK_SECRET_SLOTS.bot_token,
    "bot_token",
    "the Bot User OAuth Token, xoxb-…",
  );
  if (!/^xox[be][.-]/.test(botToken)) {
    throw SlackNotConfigured(
      "[fermix_channels.slack] bot_token is not a bot token: use the Bot User OAuth Token (xoxb-…) from your app's OAuth & Permissions page",
      { missing: "bot_token" },
    );
  }
  const appToken =
    mode === "socket"
      ? secret(
          config.app_token,
          SLACK_SECRET_SLOTS.app_token,
          "app_token",
          "an app-level token, xapp-…, for Socket Mode",
        )
      : undefined;
  if (appToken !== undefined && !appToken.startsWith("xapp-")) {
    throw SlackNotConfigured(
      "[fermix_channels.slack] app_token is not an app-level token: generate one (xapp-…) with connections:write under Basic Information → App-Level Tokens",
      { missing: "app_token" },
    );
  }
  const signingSecret =
    mode === "webhook"
      ? secret(
          config.signing_secret,
          SLACK_SECRET_SLOTS.signing_secret,
          "signing_secret",
          "from Basic Information, for webhook mode",
        )
      : undefined;

  const apiUrl = config.api_base_url ?? DEFAULT_API_BASE;
  const secrets = [appToken, signingSecret].filter((s): s is string => s !== undefined);
  const api = await createSlackApi({ baseUrl: apiUrl, botToken, secrets, log: deps.log });
  const log = {
    info: (msg: string) => deps.log.info(api.redact(msg)),
    warn: (msg: string) => deps.log.warn(api.redact(msg)),
    error: (msg: string) => deps.log.error(api.redact(msg)),
  };
  let ingest: ((message: InboundMessage) => Promise<void> | void) | undefined;
  let botUserId: string | undefined;
  let lastUpdateAt: number | undefined;

  /** An event from either transport: parsed, deduplicated by (channel, ts), handed to the gateway. */
  const onEvent = async (event: unknown) => {
    const message = parseEvent(event, botUserId, (url, maxBytes) => api.download(url, maxBytes));
    if (!message || !ingest) return;
    const key = messageKey(event);
    // A retry of one event, or a DM that is also a mention, is one message: one turn.
    if (key && !deps.dedupe.first("slack", key)) {
      log.info(`slack: skipped a repeat of message ${key}`);
      return;
    }
    lastUpdateAt = deps.now();
    await ingest(message);
  };

  const socket =
    appToken !== undefined
      ? createSocketMode({ appToken, apiUrl, log, redact: api.redact, now: deps.now, onEvent })
      : undefined;
  const webhook =
    signingSecret !== undefined
      ? createSlackWebhookRoute({ signingSecret, now: deps.now, log, onEvent: (event) => onEvent(event) })
      : undefined;
  // Registered now, not at start: the webhook port opens once the channels have started, with the routes it has.
  if (webhook) deps.webhooks.register(webhook.route);
  let appApi: SlackApi | undefined;

  return {
    name: "slack",
    capabilities: {
      editMessages: true,
      reactions: SLACK_REACTIONS,
      approveButtons: false,
      maxUploadBytes: SLACK_MAX_UPLOAD_BYTES,
    },
    revive: (raw) => parseEvent(raw, botUserId, (url, maxBytes) => api.download(url, maxBytes)),
    async start(handler) {
      try {
        const me = await api.call<{ user_id?: string }>("auth.test");
        botUserId = me.user_id;
      } catch (err) {
        if (SlackApiError.is(err) && errorKind(err.data.error) === "authentication") {
          throw SlackTokenRejected(`Slack refused the bot token (${err.data.error}): ${errorFix(err.data.error)}`, {
            error: err.data.error,
          });
        }
        // No network yet: the app's own user id is only needed to strip its mentions (bot_id still filters).
        log.warn(`slack: auth.test failed at start (${(err as Error).message}); starting anyway`);
      }
      ingest = handler;
      if (socket) await socket.start();
      log.info(`slack: started in ${mode === "socket" ? "Socket Mode" : "webhook mode (POST /webhook/slack)"}`);
    },
    async stop() {
      ingest = undefined;
      await socket?.stop();
    },
    send: (target, text) => sendReply(api, target, text),
    edit: (target, id, text) => editReply(api, target, id, text),
    delete: (target, id) => deleteReply(api, target, id),
    sendFile: (target, file) => sendSlackFile(api, target, file),
    async react(target, messageId, emoji) {
      const name = slackReactionName(emoji);
      if (!name) {
        throw SlackReactionUnsupported(
          `fermix reacts on Slack with one of ${SLACK_REACTIONS.join(" ")}, not ${JSON.stringify(emoji)}`,
          { emoji },
        );
      }
      try {
        await api.call("reactions.add", { channel: target.chatId, name, timestamp: messageId });
      } catch (err) {
        // The reaction is there already: what was asked for holds.
        if (!(SlackApiError.is(err) && err.data.error === "already_reacted")) throw err;
      }
    },
    health(): ChannelHealth {
      if (socket) return socket.health();
      const seen = webhook?.health() ?? {};
      const last = Math.max(seen.lastUpdateAt ?? 0, lastUpdateAt ?? 0);
      return {
        connected: ingest !== undefined && !seen.degraded,
        ...(last ? { lastUpdateAt: last } : {}),
        ...(seen.degraded ? { degraded: seen.degraded } : {}),
      };
    },
    async check() {
      if (appToken !== undefined) {
        appApi ??= await createSlackApi({ baseUrl: apiUrl, botToken: appToken, secrets: [botToken], log: deps.log });
      }
      return checkSlack(api, appApi);
    },
  };
}
