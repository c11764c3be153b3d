import { UsageError } from "../cli/exit.ts";
import { TELEGRAM_BOT_TOKEN_SLOT } from "../config/secret-slots.ts";
import {
  askAnswer,
  askSecrets,
  checkWithAdapter,
  openChannelSetup,
  PIPED_BOT_TOKEN,
  probe,
  refuseFlags,
  report,
  type SecretSpec,
  SIGNAL_FLAGS,
  SLACK_FLAGS,
  saveChannel,
} from "./_channel-setup-flow.ts";
import type { ChannelSetupDeps, ChannelSetupFlags } from "./channel-setup-contract.ts";
import { type Checked, orUsage } from "./validate.ts";

/** The channels setup can configure today (Signal's questions are its own: signal-setup.ts). */
export const SETUP_CHANNELS = ["telegram", "signal", "whatsapp", "discord", "slack"] as const;
const BOT_TOKEN: SecretSpec = {
  key: "bot_token",
  slot: TELEGRAM_BOT_TOKEN_SLOT,
  question: "Bot token",
  hint: "from @BotFather",
  piped: "Telegram bot token: ",
  label: "bot token",
  check: checkBotToken,
};

/**
 * `fermix setup --channel telegram`: the owner's user id and the bot token (piped, or typed without echo) are
 * gathered and the token tested with the adapter's own check (getMe) before anything is written; then the token
 * goes to the secret store and [fermix_channels.telegram] gets enabled = true, the owner and bot_token = "@keyring",
 * as small in-place edits that keep the file's comments and other keys. The daemon starts the channel at boot.
 */
export async function runChannelSetup(flags: ChannelSetupFlags, deps: ChannelSetupDeps): Promise<void> {
  const { io } = deps;
  const name = flags.channel.trim().toLowerCase();
  if (!(SETUP_CHANNELS as readonly string[]).includes(name)) {
    throw UsageError(`setup: --channel takes ${SETUP_CHANNELS.join(", ")} (got "${flags.channel}")`);
  }
  if (name === "signal") return (await import("./signal-setup.ts")).runSignalSetup(flags, deps);
  if (name === "whatsapp") return (await import("./whatsapp-setup.ts")).runWhatsAppSetup(flags, deps);
  if (name === "discord") return (await import("./discord-setup.ts")).runDiscordSetup(flags, deps);
  if (name === "slack") return (await import("./slack-setup.ts")).runSlackSetup(flags, deps);
  refuseFlags(flags, [
    SLACK_FLAGS,
    [["phoneNumberId", "secretsStdin"], "setup: --phone-number-id and --secrets-stdin go with --channel whatsapp"],
    SIGNAL_FLAGS,
  ]);
  if (flags.ownerUserId !== undefined) orUsage(checkOwnerId(flags.ownerUserId), "--owner-user-id");
  const ctx = await openChannelSetup(name, flags, deps);
  if (ctx.interactive) {
    await io.write(
      "fermix setup --channel telegram: your bot's token (from @BotFather) and your own Telegram user id.\n",
    );
  }
  const owner = await askAnswer(
    {
      given: flags.ownerUserId,
      flag: "--owner-user-id",
      current: ctx.block.owner_user_id,
      question: "Your Telegram user id (@userinfobot tells you)",
      check: checkOwnerId,
      missing: "setup: give your own Telegram user id with --owner-user-id ID (@userinfobot tells you yours)",
    },
    ctx.ask,
  );
  const answers = await askSecrets([BOT_TOKEN], PIPED_BOT_TOKEN, ctx);

  const keys = { enabled: true, owner_user_id: owner };
  await probe(
    name,
    flags,
    deps,
    { what: "the bot token", with: "the bot token with Telegram", refused: "Telegram refused the bot token" },
    () => checkWithAdapter(name, { ...ctx.block, ...keys, bot_token: answers.bot_token!.ref }, deps, ctx.secrets),
  );
  const lines = await saveChannel(name, deps, ctx, {
    keys,
    summary: `enabled, owner ${owner}`,
    specs: [BOT_TOKEN],
    answers,
  });
  await report(deps, lines, [], { firstMessage: "send your bot a message" });
}

/** A Telegram user id: a positive whole number (the owner is a person, never a group). */
export function checkOwnerId(answer: string): Checked<string> {
  const id = answer.trim();
  if (/^[1-9]\d{0,19}$/.test(id)) return { ok: true, value: id };
  return {
    ok: false,
    error: `"${id}" is not a Telegram user id (a number such as 123456789; @userinfobot tells you yours)`,
  };
}

/** A BotFather token: `<bot id>:<secret>`. Never echoed back in an error. */
export function checkBotToken(answer: string): Checked<string> {
  const token = answer.trim();
  if (/^bot\d+:/i.test(token)) {
    return { ok: false, error: 'the bot token starts with "bot": paste the BotFather token without a bot prefix' };
  }
  if (/^\d+:[A-Za-z0-9_-]{20,}$/.test(token)) return { ok: true, value: token };
  return { ok: false, error: "that is not a bot token (BotFather gives one like 123456789:AAE…, about 46 characters)" };
}
