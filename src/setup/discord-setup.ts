import { DISCORD_BOT_TOKEN_SLOT } from "../config/secret-slots.ts";
import { resolveSecret, type SecretDeps } from "../config/secrets.ts";
import type { SecretRef } from "../config/sections/secret-ref.ts";
import {
  askAnswer,
  askSecrets,
  openChannelSetup,
  PIPED_BOT_TOKEN,
  probe,
  refuseFlags,
  report,
  type SecretSpec,
  SIGNAL_FLAGS,
  SLACK_FLAGS,
  saveChannel,
  WHATSAPP_FLAGS,
  withDeadline,
} from "./_channel-setup-flow.ts";
import type { ChannelSetupDeps, ChannelSetupFlags } from "./channel-setup-contract.ts";
import { type Checked, orUsage } from "./validate.ts";

const BOT_TOKEN: SecretSpec = {
  key: "bot_token",
  slot: DISCORD_BOT_TOKEN_SLOT,
  question: "Bot token",
  hint: "Developer Portal → Bot",
  piped: "Discord bot token: ",
  label: "bot token",
  check: checkDiscordToken,
};
/**
 * What the invite asks for: View Channels, Send Messages, Send Messages in Threads, Attach Files, Read Message
 * History, Add Reactions — nothing that moderates, pings everyone or manages the server.
 */
export const INVITE_PERMISSIONS = (1n << 10n) | (1n << 11n) | (1n << 38n) | (1n << 15n) | (1n << 16n) | (1n << 6n);

/**
 * `fermix setup --channel discord`: the owner's Discord user id and the bot token (piped with --bot-token-stdin,
 * or typed without echo). The token is tested against GET /users/@me before anything is written, which also
 * gives the bot's own id; then the token goes to the secret store and [fermix_channels.discord] gets enabled,
 * owner_user_id, bot_user_id and bot_token = "@keyring". It ends with the invite link for the bot.
 */
export async function runDiscordSetup(flags: ChannelSetupFlags, deps: ChannelSetupDeps): Promise<void> {
  refuseFlags(flags, [
    SIGNAL_FLAGS,
    WHATSAPP_FLAGS,
    SLACK_FLAGS,
    [["secretsStdin"], "setup: Discord's one secret is the bot token: pipe it with --bot-token-stdin"],
  ]);
  if (flags.ownerUserId !== undefined) orUsage(checkDiscordId(flags.ownerUserId), "--owner-user-id");
  const ctx = await openChannelSetup("discord", flags, deps);
  if (ctx.interactive) {
    await deps.io.write(
      "fermix setup --channel discord: your bot's token (Developer Portal → your app → Bot) and your own Discord user id (Settings → Advanced → Developer Mode, then right-click your name → Copy User ID).\n",
    );
  }
  const owner = await askAnswer(
    {
      given: flags.ownerUserId,
      flag: "--owner-user-id",
      current: ctx.block.owner_user_id,
      question: "Your Discord user id",
      check: checkDiscordId,
      missing:
        "setup: give your own Discord user id with --owner-user-id ID (Developer Mode, then right-click your name → Copy User ID)",
    },
    ctx.ask,
  );
  const answers = await askSecrets([BOT_TOKEN], PIPED_BOT_TOKEN, ctx);

  const found = await probe(
    "discord",
    flags,
    deps,
    { what: "the bot token", with: "the bot token with Discord", refused: "Discord refused the bot token" },
    () => identify(ctx.block, answers.bot_token!.ref, ctx.secrets, deps.checkTimeoutMs ?? 10_000),
  );
  const botUserId = found ? found.id : (ctx.block.bot_user_id as string | undefined);
  const lines = await saveChannel("discord", deps, ctx, {
    keys: { enabled: true, owner_user_id: owner, bot_user_id: botUserId || undefined },
    summary: `enabled, owner ${owner}${botUserId ? `, bot ${botUserId}` : ""}`,
    specs: [BOT_TOKEN],
    answers,
  });
  const invite = botUserId
    ? [
        "Invite the bot to a server (or skip this and DM it: you need a server in common to open the DM):",
        `  https://discord.com/oauth2/authorize?client_id=${botUserId}&scope=bot&permissions=${INVITE_PERMISSIONS}`,
        "",
      ]
    : [];
  await report(
    deps,
    lines,
    ["In the Developer Portal, Bot → Privileged Gateway Intents: turn on MESSAGE CONTENT INTENT.", ...invite],
    { firstMessage: "DM the bot, or mention it in a server channel" },
  );
}

/** A Discord user id: a snowflake, 17 to 20 digits. */
export function checkDiscordId(answer: string): Checked<string> {
  const id = answer.trim();
  if (/^\d{17,20}$/.test(id)) return { ok: true, value: id };
  return {
    ok: false,
    error: `"${id}" is not a Discord user id (a number of 17–20 digits: turn on Developer Mode, then right-click your name → Copy User ID)`,
  };
}

/** A bot token: three dot-separated base64url parts. Never echoed back in an error. */
export function checkDiscordToken(answer: string): Checked<string> {
  const token = answer.trim();
  if (/^bot\s/i.test(token)) return { ok: false, error: 'the token starts with "Bot ": paste the token alone' };
  if (/^[\w-]{20,}\.[\w-]{4,}\.[\w-]{20,}$/.test(token)) return { ok: true, value: token };
  return {
    ok: false,
    error:
      "that is not a bot token (the Developer Portal's Bot → Reset Token gives one like MTA…xyz.Gabc12.…, about 72 characters)",
  };
}

/** GET /users/@me with the token, through the adapter's own REST client; bounded by `ms`. */
async function identify(
  block: Record<string, unknown>,
  ref: SecretRef,
  secrets: SecretDeps,
  ms: number,
): Promise<{ ok: true; id: string; detail: string } | { ok: false; detail: string; fix: string }> {
  const [{ createDiscordRest, DEFAULT_API_BASE }, { identifyBot }] = await Promise.all([
    import("../channels/discord/discord-rest.ts"),
    import("../channels/discord/check-bot.ts"),
  ]);
  let token: string;
  try {
    token = resolveSecret(ref, DISCORD_BOT_TOKEN_SLOT, secrets).trim();
  } catch (err) {
    return { ok: false, detail: (err as Error).message, fix: "fermix setup --channel discord" };
  }
  const rest = createDiscordRest({ baseUrl: (block.api_base_url as string | undefined) ?? DEFAULT_API_BASE, token });
  const found = await withDeadline(identifyBot(rest), ms);
  return found.ok ? { ok: true, id: found.me.id, detail: found.detail } : found;
}
