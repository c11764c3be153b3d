import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import type { ChannelAdapter } from "../channels/channel.ts";
import { CHANNELS, type ChannelDeps, oneOffDeps } from "../channels/registry.ts";
import { UsageError } from "../cli/exit.ts";
import type { Env } from "../config/env.ts";
import { loadConfig, parseConfig } from "../config/load.ts";
import type { FermixPaths } from "../config/paths.ts";
import { editConfigText } from "../config/sandbox-edit.ts";
import type { Config, SecretRef } from "../config/schema.ts";
import { TELEGRAM_BOT_TOKEN_SLOT } from "../config/secret-slots.ts";
import { createSecretStore, type SecretStore } from "../config/secret-store.ts";
import { resolveSecret, type SecretDeps } from "../config/secrets.ts";
import { FermixError } from "../error.ts";
import { notApplied, setKey } from "./config-edit.ts";
import { createPrompter, type Prompter, type SetupIo } from "./prompt.ts";
import { type Checked, orUsage } from "./validate.ts";

/** `fermix setup --channel NAME`'s options. The bot token never comes from the command line. */
export type ChannelSetupFlags = {
  channel: string;
  ownerUserId?: string;
  tokenStdin?: boolean;
  skipTest?: boolean;
  nonInteractive?: boolean;
  /** Signal: the signal-cli account fermix answers as, and where signal-cli is. */
  account?: string;
  cliPath?: string;
  /** WhatsApp: the business number's Phone number ID; the access token then the app secret piped, one a line. */
  phoneNumberId?: string;
  secretsStdin?: boolean;
  /** Slack: socket (Socket Mode, the default) or webhook; its secrets are piped with secretsStdin too. */
  mode?: string;
};

export type ChannelSetupDeps = {
  env: Env;
  paths: FermixPaths;
  io: SetupIo;
  store?: SecretStore;
  secretRun?: SecretDeps["run"];
  /** The channel adapters (the registry's); tests hand in their own. */
  channels?: Record<string, (deps: ChannelDeps) => Promise<ChannelAdapter>>;
  /** How long the token check may take (the adapter bounds its own request too). */
  checkTimeoutMs?: number;
};

/** The channels setup can configure today (Signal's questions are its own: signal-setup.ts). */
export const SETUP_CHANNELS = ["telegram", "signal", "whatsapp", "discord", "slack"] as const;
const MAX_TOKEN_BYTES = 4096;

/**
 * `fermix setup --channel telegram`: the owner's user id and the bot token (piped, or typed without echo) are
 * gathered and the token tested with the adapter's own check (getMe) before anything is written; then the token
 * goes to the secret store and [fermix_channels.telegram] gets enabled = true, the owner and bot_token = "@keyring",
 * as small in-place edits that keep the file's comments and other keys. The daemon starts the channel at boot.
 */
export async function runChannelSetup(flags: ChannelSetupFlags, deps: ChannelSetupDeps): Promise<void> {
  const { paths, io } = deps;
  const name = flags.channel.trim().toLowerCase();
  if (!(SETUP_CHANNELS as readonly string[]).includes(name)) {
    throw UsageError(`setup: --channel takes ${SETUP_CHANNELS.join(", ")} (got "${flags.channel}")`);
  }
  if (name === "signal") return (await import("./signal-setup.ts")).runSignalSetup(flags, deps);
  if (name === "whatsapp") return (await import("./whatsapp-setup.ts")).runWhatsAppSetup(flags, deps);
  if (name === "discord") return (await import("./discord-setup.ts")).runDiscordSetup(flags, deps);
  if (name === "slack") return (await import("./slack-setup.ts")).runSlackSetup(flags, deps);
  if (flags.mode !== undefined) throw UsageError("setup: --mode goes with --channel slack");
  if (flags.phoneNumberId !== undefined || flags.secretsStdin) {
    throw UsageError("setup: --phone-number-id and --secrets-stdin go with --channel whatsapp");
  }
  if (flags.account !== undefined || flags.cliPath !== undefined) {
    throw UsageError("setup: --account and --cli-path go with --channel signal");
  }
  if (flags.ownerUserId !== undefined) orUsage(checkOwnerId(flags.ownerUserId), "--owner-user-id");
  const config = await loadConfig(paths.config);
  const core = config.fermix_core;
  const block = ((config.fermix_channels ?? {}) as Record<string, Record<string, unknown> | undefined>)[name] ?? {};
  const interactive = io.isTTY && !flags.nonInteractive;
  const prompter = createPrompter(io);
  const ask = interactive ? prompter : undefined;
  const secrets: SecretDeps = { env: deps.env, secretsDir: paths.secrets, profile: core?.profile, run: deps.secretRun };

  if (interactive) {
    await io.write(
      "fermix setup --channel telegram: your bot's token (from @BotFather) and your own Telegram user id.\n",
    );
  }
  const owner = await ownerAnswer(flags, block.owner_user_id as string | undefined, ask);
  const token = await tokenAnswer(flags, block, secrets, ask, prompter, io);

  if (flags.skipTest) await io.write("Not testing the bot token (--skip-test).\n");
  else {
    await io.write("Testing the bot token with Telegram…\n");
    const check = await testToken(
      name,
      { ...block, enabled: true, owner_user_id: owner, bot_token: token.ref },
      deps,
      secrets,
    );
    if (!check.ok) {
      throw new FermixError(
        "setup_probe_failed",
        `Telegram refused the bot token: ${check.detail}\n  fix: ${check.fix}\nnothing was written; run fermix setup --channel ${name} again once it is fixed (--skip-test saves it untested)`,
      );
    }
    await io.write(`ok: ${check.detail}\n`);
  }

  const before = existsSync(paths.config) ? readFileSync(paths.config, "utf8") : "";
  const changes = { owner, keyring: token.value !== undefined };
  const after = applyChannel(before, name, changes, paths.config);
  if (after !== before && !channelApplied(parseConfig(after, paths.config), name, changes))
    throw notApplied(paths.config);

  const lines: string[] = [];
  if (token.value !== undefined) {
    const preferFile = core?.secret_store === "file";
    const store =
      deps.store ??
      createSecretStore({ secretsDir: paths.secrets, profile: core?.profile, prefer: preferFile ? "file" : undefined });
    const { where } = await store.store(TELEGRAM_BOT_TOKEN_SLOT, token.value);
    const place =
      where === "keyring"
        ? `the OS keyring (${TELEGRAM_BOT_TOKEN_SLOT})`
        : `the file store, ${join(paths.secrets, TELEGRAM_BOT_TOKEN_SLOT)} (0600)`;
    lines.push(`bot token: stored in ${place}; config.toml points at it with bot_token = "@keyring"`);
  } else {
    lines.push("bot token: kept the one config.toml already gives");
  }
  const { changed } = editConfigText(
    paths.config,
    `fermix_channels.${name}`,
    (text) => {
      const edited = applyChannel(text, name, changes, paths.config);
      return edited === text ? null : edited;
    },
    (c) => channelApplied(c, name, changes),
  );
  lines.unshift(
    changed
      ? `config: updated ${paths.config} ([fermix_channels.${name}] enabled, owner ${owner})`
      : `config: ${paths.config} already holds these answers; unchanged`,
  );
  await io.write(
    `\n${lines.join("\n")}\n\nNext:\n  fermix restart            (the daemon starts the channel when it starts)\n  fermix channels status\n  then send your bot a message\n`,
  );
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

async function ownerAnswer(flags: ChannelSetupFlags, current: string | undefined, ask: Prompter | undefined) {
  if (flags.ownerUserId !== undefined) return orUsage(checkOwnerId(flags.ownerUserId), "--owner-user-id");
  if (ask) {
    for (;;) {
      const typed = (
        await ask.line(`Your Telegram user id (@userinfobot tells you)${current ? ` [${current}]` : ""}: `)
      ).trim();
      const checked = checkOwnerId(typed || current || "");
      if (checked.ok) return checked.value;
      await ask.say(`${checked.error}\n`);
    }
  }
  if (current) return current;
  throw UsageError("setup: give your own Telegram user id with --owner-user-id ID (@userinfobot tells you yours)");
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
    // On a terminal "stdin" is the person typing: a no-echo line, not a wait for end of input.
    const read = io.setRawMode ? await prompter.hidden("Telegram bot token: ") : await prompter.rest(MAX_TOKEN_BYTES);
    return fresh(orUsage(checkBotToken(read), "--bot-token-stdin"));
  }
  const kept = keptToken(block.bot_token, secrets);
  if (ask) {
    const question = kept ? "Bot token (Enter keeps the configured one): " : "Bot token (from @BotFather): ";
    for (;;) {
      const typed = (await ask.hidden(question)).trim();
      if (!typed && kept) return { ref: block.bot_token as SecretRef };
      const checked = checkBotToken(typed);
      if (checked.ok) return fresh(checked.value);
      await ask.say(`${checked.error}\n`);
    }
  }
  if (kept) return { ref: block.bot_token as SecretRef };
  throw UsageError(
    "setup: pipe the bot token in with --bot-token-stdin (it is never read from the command line), or run setup on a terminal",
  );
}

/** Whether config.toml already gives a token that resolves (a "@keyring" one that is really there). */
function keptToken(ref: unknown, secrets: SecretDeps): boolean {
  if (ref === undefined) return false;
  try {
    return resolveSecret(ref as SecretRef, TELEGRAM_BOT_TOKEN_SLOT, secrets).trim() !== "";
  } catch {
    return false;
  }
}

async function testToken(
  name: string,
  block: Record<string, unknown>,
  deps: ChannelSetupDeps,
  secrets: SecretDeps,
): Promise<Awaited<ReturnType<ChannelAdapter["check"]>>> {
  const quiet = () => {};
  let adapter: ChannelAdapter;
  try {
    adapter = await (deps.channels ?? CHANNELS)[name]!(
      oneOffDeps({
        config: block,
        resolveSecret: (ref, slot) => resolveSecret(ref as SecretRef, slot, secrets),
        log: { info: quiet, warn: quiet, error: quiet },
        now: Date.now,
      }),
    );
  } catch (err) {
    return { ok: false, detail: (err as Error)?.message ?? String(err), fix: `fermix setup --channel ${name}` };
  }
  const ms = deps.checkTimeoutMs ?? 10_000;
  let timer: ReturnType<typeof setTimeout> | undefined;
  const late = new Promise<Awaited<ReturnType<ChannelAdapter["check"]>>>((resolve) => {
    timer = setTimeout(
      () => resolve({ ok: false, detail: `no answer within ${ms / 1000} s`, fix: "check the network and try again" }),
      ms,
    );
  });
  return Promise.race([adapter.check(), late]).finally(() => clearTimeout(timer));
}

type ChannelChanges = { owner: string; keyring: boolean };

/** The new config.toml text: enabled, the owner, and the token reference when a new token was stored. */
function applyChannel(text: string, name: string, changes: ChannelChanges, file: string): string {
  const table = `fermix_channels.${name}`;
  let out = setKey(text, table, "enabled", true, file);
  out = setKey(out, table, "owner_user_id", changes.owner, file);
  if (changes.keyring) out = setKey(out, table, "bot_token", "@keyring", file);
  return out;
}

function channelApplied(config: Config, name: string, changes: ChannelChanges): boolean {
  const block = ((config.fermix_channels ?? {}) as Record<string, Record<string, unknown> | undefined>)[name];
  return (
    block?.enabled === true &&
    String(block.owner_user_id) === changes.owner &&
    (!changes.keyring || block.bot_token === "@keyring")
  );
}
