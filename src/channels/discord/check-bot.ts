import * as v from "valibot";
import { DiscordApiError, type DiscordRest, DiscordUnreachable } from "./discord-rest.ts";
import { User } from "./wire-types.ts";

/** Doctor's live check: one GET /users/@me, answered within this. */
export const CHECK_TIMEOUT_MS = 5000;

export type CheckResult = { ok: true; detail: string } | { ok: false; detail: string; fix: string };

export const TOKEN_FIX =
  "copy the bot's current token from the Developer Portal (Applications → your app → Bot → Reset Token) and run `fermix setup --channel discord`";

/** The bot the token belongs to (GET /users/@me), or why it could not be asked. */
export async function whoAmI(rest: DiscordRest, signal?: AbortSignal): Promise<User> {
  return v.parse(User, await rest.request("reading the bot's identity", "GET", "/users/@me", signal ? { signal } : {}));
}

/**
 * Whether the token works and is the configured bot: /users/@me must answer, as a bot, with bot_user_id's id
 * when one is configured (mentions are matched on it, so a wrong one would make the bot deaf in servers).
 */
export async function checkBot(rest: DiscordRest, botUserId: string | undefined): Promise<CheckResult> {
  const found = await identifyBot(rest);
  if (!found.ok) return found;
  if (botUserId !== undefined && botUserId !== found.me.id) {
    return {
      ok: false,
      detail: `bot_user_id is ${botUserId}, but the token is ${found.detail}`,
      fix: `set bot_user_id = "${found.me.id}" in [fermix_channels.discord] (or run \`fermix setup --channel discord\`)`,
    };
  }
  return { ok: true, detail: found.detail };
}

/** The bot the token belongs to (setup writes its id as bot_user_id), or why the token is no good. */
export async function identifyBot(
  rest: DiscordRest,
): Promise<{ ok: true; me: User; detail: string } | { ok: false; detail: string; fix: string }> {
  let me: User;
  try {
    me = await whoAmI(rest, AbortSignal.timeout(CHECK_TIMEOUT_MS));
  } catch (err) {
    return failure(rest, err);
  }
  if (me.bot !== true) {
    return {
      ok: false,
      detail: `the token belongs to the user account ${me.id}, not a bot`,
      fix: `use a bot token: ${TOKEN_FIX}`,
    };
  }
  return { ok: true, me, detail: me.username ? `bot ${me.username} (id ${me.id})` : `bot id ${me.id}` };
}

function failure(rest: DiscordRest, err: unknown): { ok: false; detail: string; fix: string } {
  if (DiscordApiError.is(err)) {
    if (err.data.status === 401 || err.data.status === 403) {
      return { ok: false, detail: `Discord refused the bot token (HTTP ${err.data.status})`, fix: TOKEN_FIX };
    }
    return {
      ok: false,
      detail: err.message,
      fix: "try again later; if it persists, check https://discordstatus.com",
    };
  }
  if (DiscordUnreachable.is(err)) {
    return {
      ok: false,
      detail: err.message,
      fix: "check the network (or api_base_url in [fermix_channels.discord])",
    };
  }
  return { ok: false, detail: rest.redact(String((err as Error)?.message ?? err)), fix: "run `fermix doctor` again" };
}
