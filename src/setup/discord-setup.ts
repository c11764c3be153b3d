import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { UsageError } from "../cli/exit.ts";
import { loadConfig, parseConfig } from "../config/load.ts";
import { editConfigText } from "../config/sandbox-edit.ts";
import type { Config, SecretRef } from "../config/schema.ts";
import { DISCORD_BOT_TOKEN_SLOT } from "../config/secret-slots.ts";
import { createSecretStore } from "../config/secret-store.ts";
import { resolveSecret, type SecretDeps } from "../config/secrets.ts";
import { FermixError } from "../error.ts";
import type { ChannelSetupDeps, ChannelSetupFlags } from "./channel-setup.ts";
import { notApplied, setKey } from "./config-edit.ts";
import { createPrompter, type Prompter, type SetupIo } from "./prompt.ts";
import { type Checked, orUsage } from "./validate.ts";

const TABLE = "fermix_channels.discord";
const MAX_TOKEN_BYTES = 4096;
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
  const { paths, io } = deps;
  if (flags.account !== undefined || flags.cliPath !== undefined) {
    throw UsageError("setup: --account and --cli-path go with --channel signal");
  }
  if (flags.phoneNumberId !== undefined) throw UsageError("setup: --phone-number-id goes with --channel whatsapp");
  if (flags.mode !== undefined) throw UsageError("setup: --mode goes with --channel slack");
  if (flags.secretsStdin) {
    throw UsageError("setup: Discord's one secret is the bot token: pipe it with --bot-token-stdin");
  }
  if (flags.ownerUserId !== undefined) orUsage(checkDiscordId(flags.ownerUserId), "--owner-user-id");
  const config = await loadConfig(paths.config);
  const core = config.fermix_core;
  const block = ((config.fermix_channels ?? {}) as Record<string, Record<string, unknown> | undefined>).discord ?? {};
  const interactive = io.isTTY && !flags.nonInteractive;
  const prompter = createPrompter(io);
  const ask = interactive ? prompter : undefined;
  const secrets: SecretDeps = { env: deps.env, secretsDir: paths.secrets, profile: core?.profile, run: deps.secretRun };

  if (interactive) {
    await io.write(
      "fermix setup --channel discord: your bot's token (Developer Portal → your app → Bot) and your own Discord user id (Settings → Advanced → Developer Mode, then right-click your name → Copy User ID).\n",
    );
  }
  const owner = await ownerAnswer(flags, block.owner_user_id as string | undefined, ask);
  const token = await tokenAnswer(flags, block, secrets, ask, prompter, io);

  let botUserId = block.bot_user_id as string | undefined;
  if (flags.skipTest) await io.write("Not testing the bot token (--skip-test).\n");
  else {
    await io.write("Testing the bot token with Discord…\n");
    const found = await identify(block, token.ref, secrets, deps.checkTimeoutMs ?? 10_000);
    if (!found.ok) {
      throw new FermixError(
        "setup_probe_failed",
        `Discord refused the bot token: ${found.detail}\n  fix: ${found.fix}\nnothing was written; run fermix setup --channel discord again once it is fixed (--skip-test saves it untested)`,
      );
    }
    botUserId = found.id;
    await io.write(`ok: ${found.detail}\n`);
  }

  const changes: Changes = { owner, ...(botUserId ? { botUserId } : {}), keyring: token.value !== undefined };
  const before = existsSync(paths.config) ? readFileSync(paths.config, "utf8") : "";
  const after = apply(before, changes, paths.config);
  if (after !== before && !applied(parseConfig(after, paths.config), changes)) throw notApplied(paths.config);

  const lines: string[] = [];
  if (token.value !== undefined) {
    const store =
      deps.store ??
      createSecretStore({
        secretsDir: paths.secrets,
        profile: core?.profile,
        prefer: core?.secret_store === "file" ? "file" : undefined,
      });
    const { where } = await store.store(DISCORD_BOT_TOKEN_SLOT, token.value);
    const place =
      where === "keyring"
        ? `the OS keyring (${DISCORD_BOT_TOKEN_SLOT})`
        : `the file store, ${join(paths.secrets, DISCORD_BOT_TOKEN_SLOT)} (0600)`;
    lines.push(`bot token: stored in ${place}; config.toml points at it with bot_token = "@keyring"`);
  } else {
    lines.push("bot token: kept the one config.toml already gives");
  }
  const { changed } = editConfigText(
    paths.config,
    TABLE,
    (text) => {
      const edited = apply(text, changes, paths.config);
      return edited === text ? null : edited;
    },
    (c) => applied(c, changes),
  );
  lines.unshift(
    changed
      ? `config: updated ${paths.config} ([${TABLE}] enabled, owner ${owner}${botUserId ? `, bot ${botUserId}` : ""})`
      : `config: ${paths.config} already holds these answers; unchanged`,
  );
  const invite = botUserId
    ? [
        "Invite the bot to a server (or skip this and DM it: you need a server in common to open the DM):",
        `  https://discord.com/oauth2/authorize?client_id=${botUserId}&scope=bot&permissions=${INVITE_PERMISSIONS}`,
        "",
      ]
    : [];
  await io.write(
    [
      "",
      ...lines,
      "",
      "In the Developer Portal, Bot → Privileged Gateway Intents: turn on MESSAGE CONTENT INTENT.",
      ...invite,
      "Next:",
      "  fermix restart            (the daemon starts the channel when it starts)",
      "  fermix channels status",
      "  then DM the bot, or mention it in a server channel",
      "",
    ].join("\n"),
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

type Changes = { owner: string; botUserId?: string; keyring: boolean };

function apply(text: string, changes: Changes, file: string): string {
  let out = setKey(text, TABLE, "enabled", true, file);
  out = setKey(out, TABLE, "owner_user_id", changes.owner, file);
  if (changes.botUserId) out = setKey(out, TABLE, "bot_user_id", changes.botUserId, file);
  if (changes.keyring) out = setKey(out, TABLE, "bot_token", "@keyring", file);
  return out;
}

function applied(config: Config, changes: Changes): boolean {
  const block = config.fermix_channels?.discord;
  return (
    block?.enabled === true &&
    block.owner_user_id === changes.owner &&
    (!changes.botUserId || block.bot_user_id === changes.botUserId) &&
    (!changes.keyring || block.bot_token === "@keyring")
  );
}

async function ownerAnswer(flags: ChannelSetupFlags, current: string | undefined, ask: Prompter | undefined) {
  if (flags.ownerUserId !== undefined) return orUsage(checkDiscordId(flags.ownerUserId), "--owner-user-id");
  if (ask) {
    for (;;) {
      const typed = (await ask.line(`Your Discord user id${current ? ` [${current}]` : ""}: `)).trim();
      const checked = checkDiscordId(typed || current || "");
      if (checked.ok) return checked.value;
      await ask.say(`${checked.error}\n`);
    }
  }
  if (current) return current;
  throw UsageError(
    "setup: give your own Discord user id with --owner-user-id ID (Developer Mode, then right-click your name → Copy User ID)",
  );
}

/** The token to test (`ref`) and, when it is new, the value to store (`value`). */
async function tokenAnswer(
  flags: ChannelSetupFlags,
  block: Record<string, unknown>,
  secrets: SecretDeps,
  ask: Prompter | undefined,
  prompter: Prompter,
  io: SetupIo,
): Promise<{ ref: SecretRef; value?: string }> {
  const fresh = (value: string) => ({ ref: value, value });
  if (flags.tokenStdin) {
    const read = io.setRawMode ? await prompter.hidden("Discord bot token: ") : await prompter.rest(MAX_TOKEN_BYTES);
    return fresh(orUsage(checkDiscordToken(read), "--bot-token-stdin"));
  }
  const kept = keptToken(block.bot_token, secrets);
  if (ask) {
    const question = kept ? "Bot token (Enter keeps the configured one): " : "Bot token (Developer Portal → Bot): ";
    for (;;) {
      const typed = (await ask.hidden(question)).trim();
      if (!typed && kept) return { ref: block.bot_token as SecretRef };
      const checked = checkDiscordToken(typed);
      if (checked.ok) return fresh(checked.value);
      await ask.say(`${checked.error}\n`);
    }
  }
  if (kept) return { ref: block.bot_token as SecretRef };
  throw UsageError(
    "setup: pipe the bot token in with --bot-token-stdin (it is never read from the command line), or run setup on a terminal",
  );
}

function keptToken(ref: unknown, secrets: SecretDeps): boolean {
  if (ref === undefined) return false;
  try {
    return resolveSecret(ref as SecretRef, DISCORD_BOT_TOKEN_SLOT, secrets).trim() !== "";
  } catch {
    return false;
  }
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
  let timer: ReturnType<typeof setTimeout> | undefined;
  const late = new Promise<{ ok: false; detail: string; fix: string }>((resolve) => {
    timer = setTimeout(
      () => resolve({ ok: false, detail: `no answer within ${ms / 1000} s`, fix: "check the network and try again" }),
      ms,
    );
  });
  const found = await Promise.race([identifyBot(rest), late]).finally(() => clearTimeout(timer));
  return found.ok ? { ok: true, id: found.me.id, detail: found.detail } : found;
}
