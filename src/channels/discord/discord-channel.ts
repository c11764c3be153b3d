import { DISCORD_BOT_TOKEN_SLOT } from "../../config/secret-slots.ts";
import type { DiscordConfig } from "../../config/sections/channels.ts";
import { defineError } from "../../error.ts";
import type { ChannelAdapter, ChannelDeps } from "../channel.ts";
import { createAttachmentFetcher } from "./attachment-download.ts";
import { createButtonTaps } from "./button-taps.ts";
import { CHECK_TIMEOUT_MS, checkBot, TOKEN_FIX, whoAmI } from "./check-bot.ts";
import { createDiscordRest, DEFAULT_API_BASE, DiscordApiError } from "./discord-rest.ts";
import { createGatewaySession } from "./gateway-session.ts";
import { MAX_DISCORD_FILE_BYTES, parseMessage } from "./parse-message.ts";
import { sendDiscordFile } from "./send-file.ts";
import { editReply, sendReply, snowflake } from "./send-reply.ts";

export const DiscordNotConfigured = defineError("discord_not_configured");
export const DiscordTokenRejected = defineError<{ status: number }>("discord_token_rejected");

const SETUP_HINT =
  "run `fermix setup --channel discord`, or set bot_token in [fermix_channels.discord] in config.toml (or DISCORD_BOT_TOKEN)";

/**
 * The Discord adapter: gateway v10 in (gateway-session.ts on @discordjs/ws → parse-message.ts for DMs and
 * mentions, button-taps.ts for the Approve/Deny buttons), REST out (@discordjs/rest: replies in 2,000-code-point
 * chunks that never ping, files up to 10 MB, reactions, typing). The bot token goes nowhere but the gateway's
 * Identify and REST's Authorization header, and every log line this adapter writes is redacted.
 */
export function createDiscordChannel(deps: ChannelDeps): ChannelAdapter {
  const config = deps.config as DiscordConfig;
  if (config.bot_token === undefined) {
    throw DiscordNotConfigured(`the Discord channel is enabled but has no bot token: ${SETUP_HINT}`);
  }
  const token = deps.resolveSecret(config.bot_token, DISCORD_BOT_TOKEN_SLOT).trim();
  if (!token) throw DiscordNotConfigured(`the Discord bot token is empty: ${SETUP_HINT}`);
  const rest = createDiscordRest({ baseUrl: config.api_base_url ?? DEFAULT_API_BASE, token });
  const log = {
    info: (msg: string) => deps.log.info(rest.redact(msg)),
    warn: (msg: string) => deps.log.warn(rest.redact(msg)),
    error: (msg: string) => deps.log.error(rest.redact(msg)),
  };
  // Mentions are matched on the bot's id: the configured one (checked at start), else the one Discord reports.
  let botUserId = config.bot_user_id;
  const fetchAttachment = createAttachmentFetcher({
    ...(config.api_base_url ? { extraOrigin: new URL(config.api_base_url).origin } : {}),
  });
  const taps = createButtonTaps({ rest, ownerId: config.owner_user_id, log });
  let ingest: Parameters<ChannelAdapter["start"]>[0] = () => {};

  const session = createGatewaySession({
    token,
    rest,
    ...(config.gateway_url ? { gatewayUrl: config.gateway_url } : {}),
    log,
    now: deps.now,
    onDispatch(type, data) {
      if (type === "READY") {
        botUserId ??= (data as { user?: { id?: string } })?.user?.id;
        return;
      }
      if (type !== "MESSAGE_CREATE" && type !== "INTERACTION_CREATE") return;
      // A resumed session replays from the last sequence the library recorded, which can trail what was handled.
      const id = (data as { id?: unknown })?.id;
      if (typeof id !== "string" || !deps.dedupe.first("discord", `${type}:${id}`)) return;
      const message =
        type === "MESSAGE_CREATE" ? parseMessage(data, botUserId ?? "", fetchAttachment) : taps.receive(data);
      if (message) ingest(message);
    },
  });

  return {
    name: "discord",
    capabilities: {
      editMessages: true,
      // Any emoji Discord knows (an empty list: not a fixed set); it refuses unknown ones itself.
      reactions: [],
      approveButtons: true,
      maxUploadBytes: MAX_DISCORD_FILE_BYTES,
      // An edited message holds 2,000 code points; the draft stays under that with room for a closing fence.
      draftUnits: 1900,
    },
    revive: (raw) => parseMessage(raw, botUserId ?? "", fetchAttachment),
    async start(handler) {
      ingest = handler;
      try {
        const me = await whoAmI(rest, AbortSignal.timeout(CHECK_TIMEOUT_MS * 2));
        if (config.bot_user_id !== undefined && config.bot_user_id !== me.id) {
          throw DiscordNotConfigured(
            `bot_user_id is ${config.bot_user_id}, but the bot token belongs to ${me.id}: set bot_user_id = "${me.id}" in [fermix_channels.discord]`,
          );
        }
        botUserId = me.id;
      } catch (err) {
        if (DiscordNotConfigured.is(err)) throw err;
        if (DiscordApiError.is(err) && (err.data.status === 401 || err.data.status === 403)) {
          throw DiscordTokenRejected(`Discord rejected the bot token (HTTP ${err.data.status}): ${TOKEN_FIX}`, {
            status: err.data.status,
          });
        }
        // Unreachable for now: the gateway keeps trying, and READY says who the bot is.
        log.warn(`discord: ${(err as Error)?.message ?? String(err)}; connecting to the gateway anyway`);
      }
      await session.start();
    },
    async stop() {
      taps.stop();
      await session.stop();
    },
    send: (target, text) => sendReply(rest, target, text),
    edit: (target, id, text) => editReply(rest, target, id, text),
    async delete(target, id) {
      await rest.request(
        "deleting a message",
        "DELETE",
        `/channels/${snowflake(target.chatId)}/messages/${snowflake(id)}`,
      );
    },
    sendFile: (target, file) => sendDiscordFile(rest, target, file),
    async react(target, messageId, emoji) {
      const route = `/channels/${snowflake(target.chatId)}/messages/${snowflake(messageId)}/reactions/${encodeURIComponent(emoji.trim())}/@me`;
      await rest.request("adding a reaction", "PUT", route as `/${string}`);
    },
    async typing(target) {
      await rest.request("showing typing", "POST", `/channels/${snowflake(target.chatId)}/typing`);
    },
    answerTap: (tapId) => taps.answer(tapId),
    health: () => session.health(),
    check: () => checkBot(rest, config.bot_user_id),
  };
}
