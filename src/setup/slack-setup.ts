import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import type { ChannelAdapter } from "../channels/channel.ts";
import { CHANNELS, oneOffDeps } from "../channels/registry.ts";
import { UsageError } from "../cli/exit.ts";
import { loadConfig, parseConfig } from "../config/load.ts";
import { editConfigText } from "../config/sandbox-edit.ts";
import type { Config, SecretRef } from "../config/schema.ts";
import { SLACK_SECRET_SLOTS } from "../config/secret-slots.ts";
import { createSecretStore } from "../config/secret-store.ts";
import { resolveSecret, type SecretDeps } from "../config/secrets.ts";
import { FermixError } from "../error.ts";
import { DEFAULT_WEBHOOK_PORT } from "../gateway/channels-runtime.ts";
import type { ChannelSetupDeps, ChannelSetupFlags } from "./channel-setup.ts";
import { notApplied, setKey } from "./config-edit.ts";
import { createPrompter, type Prompter } from "./prompt.ts";
import { type Checked, orUsage } from "./validate.ts";

const TABLE = "fermix_channels.slack";
type Mode = "socket" | "webhook";
type SecretKey = keyof typeof SLACK_SECRET_SLOTS;
const MAX_SECRET_CHARS = 1024;

const QUESTIONS: Record<SecretKey, string> = {
  bot_token: "Bot User OAuth Token (xoxb-…, OAuth & Permissions)",
  app_token: "App-level token (xapp-…, Basic Information → App-Level Tokens)",
  signing_secret: "Signing Secret (Basic Information → App Credentials)",
};

/**
 * `fermix setup --channel slack`: the transport (Socket Mode unless `--mode webhook`), your own member id, and the
 * app's secrets — the bot token, then the app-level token (Socket Mode) or the signing secret (webhook mode) — piped
 * with --secrets-stdin, one a line, or typed without echo. They are tested with the adapter's own check (auth.test,
 * and apps.connections.open for the app-level token) before anything is written; then the secrets go to the secret
 * store and [fermix_channels.slack] gets enabled = true, the mode, the owner and "@keyring" references.
 */
export async function runSlackSetup(flags: ChannelSetupFlags, deps: ChannelSetupDeps): Promise<void> {
  const { paths, io } = deps;
  if (flags.tokenStdin) {
    throw UsageError(
      "setup: --channel slack reads its secrets with --secrets-stdin (the bot token, then the app-level token or the signing secret)",
    );
  }
  if (flags.account !== undefined || flags.cliPath !== undefined) {
    throw UsageError("setup: --account and --cli-path go with --channel signal");
  }
  if (flags.phoneNumberId !== undefined) throw UsageError("setup: --phone-number-id goes with --channel whatsapp");
  if (flags.mode !== undefined) orUsage(checkMode(flags.mode), "--mode");
  if (flags.ownerUserId !== undefined) orUsage(checkMemberId(flags.ownerUserId), "--owner-user-id");
  const config = await loadConfig(paths.config);
  const core = config.fermix_core;
  const block = ((config.fermix_channels ?? {}) as Record<string, Record<string, unknown> | undefined>).slack ?? {};
  const interactive = io.isTTY && !flags.nonInteractive;
  const prompter = createPrompter(io);
  const ask = interactive ? prompter : undefined;
  const secrets: SecretDeps = { env: deps.env, secretsDir: paths.secrets, profile: core?.profile, run: deps.secretRun };

  if (interactive) {
    await io.write(
      "fermix setup --channel slack: from your Slack app (api.slack.com/apps) its tokens, and your own member id (your profile → ⋮ → Copy member ID).\n",
    );
  }
  const mode = await modeAnswer(flags.mode, block.mode, ask);
  const owner = await ownerAnswer(flags.ownerUserId, block.owner_user_id, ask);
  const keys: SecretKey[] = ["bot_token", mode === "socket" ? "app_token" : "signing_secret"];
  const answers = {} as Record<SecretKey, { ref: SecretRef; value?: string }>;
  for (const key of keys)
    answers[key] = await secretAnswer(key, flags, block, secrets, ask, prompter, io.setRawMode !== undefined);

  if (flags.skipTest) await io.write("Not testing the tokens (--skip-test).\n");
  else {
    await io.write("Testing the tokens with Slack…\n");
    const refs = Object.fromEntries(keys.map((key) => [key, answers[key].ref]));
    const check = await testTokens({ ...block, enabled: true, mode, owner_user_id: owner, ...refs }, deps, secrets);
    if (!check.ok) {
      throw new FermixError(
        "setup_probe_failed",
        `Slack refused: ${check.detail}\n  fix: ${check.fix}\nnothing was written; run fermix setup --channel slack again once it is fixed (--skip-test saves it untested)`,
      );
    }
    await io.write(`ok: ${check.detail}\n`);
  }

  const changes: Changes = { mode, owner, keyring: keys.filter((key) => answers[key].value !== undefined) };
  const before = existsSync(paths.config) ? readFileSync(paths.config, "utf8") : "";
  const after = apply(before, changes, paths.config);
  if (after !== before && !applied(parseConfig(after, paths.config), changes)) throw notApplied(paths.config);

  const lines: string[] = [];
  const store =
    deps.store ??
    createSecretStore({
      secretsDir: paths.secrets,
      profile: core?.profile,
      prefer: core?.secret_store === "file" ? "file" : undefined,
    });
  for (const key of changes.keyring) {
    const slot = SLACK_SECRET_SLOTS[key];
    const { where } = await store.store(slot, answers[key].value!);
    const place =
      where === "keyring" ? `the OS keyring (${slot})` : `the file store, ${join(paths.secrets, slot)} (0600)`;
    lines.push(`${key}: stored in ${place}; config.toml says ${key} = "@keyring"`);
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
      ? `config: updated ${paths.config} ([${TABLE}] enabled, mode ${mode}, owner ${owner})`
      : `config: ${paths.config} already holds these answers; unchanged`,
  );
  const port = config.fermix_web?.webhook_port ?? DEFAULT_WEBHOOK_PORT;
  const slackSide =
    mode === "socket"
      ? ["In the Slack app: Socket Mode on, and Event Subscriptions on with the bot events message.im and app_mention."]
      : [
          "In the Slack app, Event Subscriptions (with the bot events message.im and app_mention):",
          `  Request URL: https://<your tunnel>/webhook/slack  (the tunnel forwards to 127.0.0.1:${port}, the webhook port, and nothing else)`,
          "  Slack verifies it once the daemon runs with this config.",
        ];
  await io.write(
    [
      "",
      ...lines,
      "",
      ...slackSide,
      "",
      "Next:",
      "  fermix restart            (the daemon starts the channel when it starts)",
      "  fermix channels status",
      "  then send the app a direct message in Slack",
      "",
    ].join("\n"),
  );
}

/** A Slack member id: U… (or W… on Enterprise Grid), never a display name. */
export function checkMemberId(answer: string): Checked<string> {
  const id = answer.trim();
  if (/^[UW][A-Z0-9]{6,}$/.test(id)) return { ok: true, value: id };
  return {
    ok: false,
    error: `"${id}" is not a Slack member id (such as U012AB3CD4E: your profile → ⋮ → Copy member ID)`,
  };
}

function checkMode(answer: string): Checked<Mode> {
  const mode = answer.trim().toLowerCase();
  if (mode === "socket" || mode === "webhook") return { ok: true, value: mode };
  return { ok: false, error: `"${answer.trim()}" is not a mode: socket (Socket Mode, the default) or webhook` };
}

/** Never echoed back in an error. */
export function checkSecret(answer: string, key: SecretKey): Checked<string> {
  const value = answer.trim();
  if (value.length > MAX_SECRET_CHARS || /\s/.test(value)) return { ok: false, error: `that is not a ${key}` };
  if (key === "bot_token") {
    return /^xox[be][.-][\w.-]{10,}$/.test(value)
      ? { ok: true, value }
      : { ok: false, error: "that is not a bot token (the Bot User OAuth Token starts with xoxb-)" };
  }
  if (key === "app_token") {
    return /^xapp-[\w-]{10,}$/.test(value)
      ? { ok: true, value }
      : { ok: false, error: "that is not an app-level token (it starts with xapp-; make one with connections:write)" };
  }
  return /^[0-9a-f]{32}$/i.test(value) || value.length >= 16
    ? { ok: true, value }
    : { ok: false, error: "that is not a signing secret (Basic Information shows one: 32 hexadecimal characters)" };
}

async function modeAnswer(flag: string | undefined, current: unknown, ask: Prompter | undefined): Promise<Mode> {
  if (flag !== undefined) return orUsage(checkMode(flag), "--mode");
  const kept = current === "webhook" ? "webhook" : "socket";
  if (!ask) return kept;
  for (;;) {
    const typed = (
      await ask.line(`Socket Mode (no public URL needed) or webhook (a tunnel to the webhook port)? [${kept}]: `)
    ).trim();
    const checked = checkMode(typed || kept);
    if (checked.ok) return checked.value;
    await ask.say(`${checked.error}\n`);
  }
}

async function ownerAnswer(flag: string | undefined, current: unknown, ask: Prompter | undefined): Promise<string> {
  if (flag !== undefined) return orUsage(checkMemberId(flag), "--owner-user-id");
  const kept = current === undefined ? undefined : String(current);
  if (ask) {
    for (;;) {
      const typed = (await ask.line(`Your Slack member id${kept ? ` [${kept}]` : ""}: `)).trim();
      const checked = checkMemberId(typed || kept || "");
      if (checked.ok) return checked.value;
      await ask.say(`${checked.error}\n`);
    }
  }
  if (kept) return kept;
  throw UsageError("setup: give your own Slack member id with --owner-user-id U… (your profile → ⋮ → Copy member ID)");
}

/** One secret: piped (a line each, in order), typed without echo, or the configured one kept. */
async function secretAnswer(
  key: SecretKey,
  flags: ChannelSetupFlags,
  block: Record<string, unknown>,
  secrets: SecretDeps,
  ask: Prompter | undefined,
  prompter: Prompter,
  terminal: boolean,
): Promise<{ ref: SecretRef; value?: string }> {
  if (flags.secretsStdin) {
    // On a terminal "stdin" is the person typing: a no-echo line each.
    const read = terminal ? await prompter.hidden(`${QUESTIONS[key]}: `) : await prompter.line("");
    const value = orUsage(checkSecret(read, key), "--secrets-stdin");
    return { ref: value, value };
  }
  const kept = keptRef(block[key], SLACK_SECRET_SLOTS[key], secrets);
  if (ask) {
    for (;;) {
      const typed = (
        await ask.hidden(kept ? `${QUESTIONS[key]} (Enter keeps the configured one): ` : `${QUESTIONS[key]}: `)
      ).trim();
      if (!typed && kept) return { ref: block[key] as SecretRef };
      const checked = checkSecret(typed, key);
      if (checked.ok) return { ref: checked.value, value: checked.value };
      await ask.say(`${checked.error}\n`);
    }
  }
  if (kept) return { ref: block[key] as SecretRef };
  throw UsageError(
    "setup: pipe the bot token, then the app-level token (or with --mode webhook the signing secret), in with --secrets-stdin, one per line (never on the command line), or run setup on a terminal",
  );
}

/** Whether config.toml already gives this secret and it resolves (a "@keyring" one that is really there). */
function keptRef(ref: unknown, slot: string, secrets: SecretDeps): boolean {
  if (ref === undefined) return false;
  try {
    return resolveSecret(ref as SecretRef, slot, secrets).trim() !== "";
  } catch {
    return false;
  }
}

async function testTokens(
  block: Record<string, unknown>,
  deps: ChannelSetupDeps,
  secrets: SecretDeps,
): Promise<Awaited<ReturnType<ChannelAdapter["check"]>>> {
  const quiet = () => {};
  let adapter: ChannelAdapter;
  try {
    adapter = await (deps.channels ?? CHANNELS).slack!(
      oneOffDeps({
        config: block,
        resolveSecret: (ref, slot) => resolveSecret(ref as SecretRef, slot, secrets),
        log: { info: quiet, warn: quiet, error: quiet },
        now: Date.now,
      }),
    );
  } catch (err) {
    return { ok: false, detail: (err as Error)?.message ?? String(err), fix: "fermix setup --channel slack" };
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

type Changes = { mode: Mode; owner: string; keyring: SecretKey[] };

function apply(text: string, changes: Changes, file: string): string {
  let out = setKey(text, TABLE, "enabled", true, file);
  out = setKey(out, TABLE, "mode", changes.mode, file);
  out = setKey(out, TABLE, "owner_user_id", changes.owner, file);
  for (const key of changes.keyring) out = setKey(out, TABLE, key, "@keyring", file);
  return out;
}

function applied(config: Config, changes: Changes): boolean {
  const block = config.fermix_channels?.slack;
  return (
    block?.enabled === true &&
    (block.mode ?? "socket") === changes.mode &&
    block.owner_user_id === changes.owner &&
    changes.keyring.every((key) => block[key] === "@keyring")
  );
}
