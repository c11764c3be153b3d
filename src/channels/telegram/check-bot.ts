import * as v from "valibot";
import { type BotApi, TelegramApiError, TelegramUnreachable } from "./bot-api.ts";
import { BotUser } from "./bot-api-types.ts";

/** Doctor's live check: one getMe, no retry, answered within this. */
export const CHECK_TIMEOUT_MS = 5000;

/** Whether the token works, and which bot it is; a failure says what to do in the facts' words. */
export async function checkBot(
  api: BotApi,
): Promise<{ ok: true; detail: string } | { ok: false; detail: string; fix: string }> {
  try {
    const me = v.parse(BotUser, await api.call("getMe", {}, { timeoutMs: CHECK_TIMEOUT_MS }));
    return { ok: true, detail: `bot ${me.username ? `@${me.username}` : (me.first_name ?? "")} (id ${me.id})`.trim() };
  } catch (err) {
    if (TelegramApiError.is(err)) {
      const status = err.data.status;
      if (status === 404) {
        return {
          ok: false,
          detail: "invalid bot token: Telegram answered 404 Not Found",
          fix: "paste the BotFather token without a bot prefix (fermix setup --channel telegram)",
        };
      }
      if (status === 401 || status === 403) {
        return {
          ok: false,
          detail: `Telegram refused the bot token (${status} ${err.data.description})`,
          fix: "the token was revoked or mistyped: copy the current one from @BotFather and run `fermix setup --channel telegram`",
        };
      }
      return { ok: false, detail: err.message, fix: "try again later; if it persists, check https://t.me/BotNews" };
    }
    if (TelegramUnreachable.is(err)) {
      return {
        ok: false,
        detail: err.message,
        fix: "check the network (or api_base_url in [fermix_channels.telegram])",
      };
    }
    return { ok: false, detail: api.redact(String((err as Error)?.message ?? err)), fix: "run `fermix doctor` again" };
  }
}
