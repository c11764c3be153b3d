import * as v from "valibot";
import type { TelegramConfig } from "../../config/sections/channels.ts";
import { defineError } from "../../error.ts";
import type { ChannelAdapter, ChannelDeps } from "../channel.ts";
import { type BotApi, createBotApi, DEFAULT_API_BASE, TelegramApiError, TelegramFileTooLarge } from "./bot-api.ts";
import { File } from "./bot-api-types.ts";
import { checkBot } from "./check-bot.ts";
import { parseUpdate } from "./parse-update.ts";
import { createPoller } from "./poller.ts";
import { TELEGRAM_REACTIONS, telegramReaction } from "./reactions.ts";
import { CHUNK_UNITS } from "./reply-chunks.ts";
import { sendTelegramFile, TELEGRAM_UPLOAD_CAPS } from "./send-file.ts";
import { chatParams, editReply, notModified, sendReply } from "./send-reply.ts";

export const TelegramNotConfigured = defineError("telegram_not_configured");
export const TelegramTokenRejected = defineError<{ status: number }>("telegram_token_rejected");
export const TelegramReactionUnsupported = defineError<{ emoji: string }>("telegram_reaction_unsupported");

const SETUP_HINT =
  "run `fermix setup --channel telegram`, or set bot_token in [fermix_channels.telegram] in config.toml";

/**
 * The Telegram adapter: Bot API long polling in (poller.ts → parse-update.ts), Markdown rendered to Telegram HTML
 * and split out (send-reply.ts), files, reactions, the Approve/Deny buttons' acknowledgement. The bot token is
 * read here once and goes nowhere but the Bot API's URLs: every message this adapter produces is redacted.
 */
export function createTelegramChannel(deps: ChannelDeps): ChannelAdapter {
  const config = deps.config as TelegramConfig;
  if (config.bot_token === undefined) {
    throw TelegramNotConfigured(`the Telegram channel is enabled but has no bot token: ${SETUP_HINT}`);
  }
  // An exported token is how two installs end up polling one bot (409s); config.toml or the keyring only.
  if (isEnvReference(config.bot_token)) {
    throw TelegramNotConfigured(
      `[fermix_channels.telegram] bot_token may not come from an environment variable (a token exported in a shell lets two installs poll the same bot): ${SETUP_HINT}`,
    );
  }
  const token = deps.resolveSecret(config.bot_token, "TELEGRAM_BOT_TOKEN").trim();
  if (!token) throw TelegramNotConfigured(`the Telegram bot token is empty: ${SETUP_HINT}`);
  const api = createBotApi({ baseUrl: config.api_base_url ?? DEFAULT_API_BASE, token });
  const log = {
    info: (msg: string) => deps.log.info(api.redact(msg)),
    warn: (msg: string) => deps.log.warn(api.redact(msg)),
    error: (msg: string) => deps.log.error(api.redact(msg)),
  };
  let ingest: Parameters<ChannelAdapter["start"]>[0] = () => {};
  const cursor = deps.cursor;

  const fetchFile = async (fileId: string, declared: number | undefined, maxBytes: number) => {
    if (declared !== undefined && declared > maxBytes) throw tooLarge(declared, maxBytes);
    // file_path expires after about an hour: asked for right before each download.
    const file = v.parse(File, await api.call("getFile", { file_id: fileId }));
    if (file.file_size !== undefined && file.file_size > maxBytes) throw tooLarge(file.file_size, maxBytes);
    if (!file.file_path)
      throw TelegramApiError("Telegram getFile gave no file_path", {
        method: "getFile",
        status: 200,
        description: "no file_path",
      });
    return api.download(file.file_path, maxBytes);
  };

  const poller = createPoller({
    api,
    log,
    now: deps.now,
    async onUpdate(update) {
      const parsed = parseUpdate(update, fetchFile);
      // Awaited: the poller moves Telegram's offset past an update only once the gateway has stored it.
      if (parsed.kind === "message") await ingest(parsed.message);
      else if (parsed.kind === "stray_tap") void answerCallback(api, parsed.callbackId);
    },
    cursor: cursor && {
      load: () => {
        const saved = Number(cursor.load());
        return Number.isSafeInteger(saved) && saved > 0 ? saved : undefined;
      },
      save: (offset) => cursor.save(String(offset)),
    },
  });

  return {
    name: "telegram",
    capabilities: {
      editMessages: true,
      reactions: TELEGRAM_REACTIONS,
      approveButtons: true,
      maxUploadBytes: TELEGRAM_UPLOAD_CAPS.document,
      // editMessageText keeps one card (send-reply.ts editReply): a longer draft goes on in new messages.
      draftUnits: CHUNK_UNITS,
    },
    async start(handler) {
      ingest = handler;
      try {
        await poller.start();
      } catch (err) {
        const status = TelegramApiError.is(err) ? err.data.status : 0;
        throw TelegramTokenRejected(
          `Telegram rejected the bot token (${status === 404 ? "404 Not Found" : "401 Unauthorized"}): ${tokenFix(status)}`,
          { status },
        );
      }
    },
    stop: () => poller.stop(),
    revive(raw) {
      const parsed = parseUpdate(raw, fetchFile);
      return parsed.kind === "message" ? parsed.message : undefined;
    },
    send: (target, text) => sendReply(api, target, text),
    edit: (target, id, text) => editReply(api, target, id, text),
    async delete(target, id) {
      await api.call("deleteMessage", { chat_id: chatParams(target).chat_id, message_id: Number(id) });
    },
    sendFile: (target, file) => sendTelegramFile(api, target, file),
    async react(target, messageId, emoji) {
      const listed = telegramReaction(emoji);
      if (!listed) {
        throw TelegramReactionUnsupported(
          `Telegram does not accept ${JSON.stringify(emoji)} as a reaction; use one of ${TELEGRAM_REACTIONS.join(" ")}`,
          { emoji },
        );
      }
      await api.call("setMessageReaction", {
        chat_id: chatParams(target).chat_id,
        message_id: Number(messageId),
        reaction: [{ type: "emoji", emoji: listed }],
      });
    },
    async typing(target) {
      await api.call("sendChatAction", { ...chatParams(target), action: "typing" }, { timeoutMs: 10_000 });
    },
    async answerTap(tapId, target, messageId) {
      await answerCallback(api, tapId);
      try {
        // The token in the button is single use: the button goes once it has been tapped.
        await api.call("editMessageReplyMarkup", {
          chat_id: chatParams(target).chat_id,
          message_id: Number(messageId),
          reply_markup: { inline_keyboard: [] },
        });
      } catch (err) {
        if (!notModified(err)) throw err;
      }
    },
    health: () => poller.health(),
    check: () => checkBot(api),
  };
}

/** Stops the button's spinner; a query older than Telegram's window can no longer be answered, which is fine. */
async function answerCallback(api: BotApi, callbackId: string): Promise<void> {
  await api.call("answerCallbackQuery", { callback_query_id: callbackId }).catch(() => {});
}

export function tokenFix(status: number): string {
  return status === 404
    ? "invalid bot token — paste the BotFather token without a bot prefix (fermix setup --channel telegram)"
    : "the token was revoked or mistyped — copy the current one from @BotFather and run `fermix setup --channel telegram`";
}

function isEnvReference(ref: TelegramConfig["bot_token"]): boolean {
  if (typeof ref === "string") return /^\$\{?[A-Za-z_][A-Za-z0-9_]*\}?$/.test(ref);
  return typeof ref === "object" && ref !== null && ref.source === "env";
}

function tooLarge(size: number, maxBytes: number) {
  const mb = (n: number) => `${Math.round((n / 1024 / 1024) * 10) / 10} MB`;
  return TelegramFileTooLarge(`the Telegram file is ${mb(size)}, over the ${mb(maxBytes)} limit; refusing it`, {
    size,
    maxBytes,
  });
}
