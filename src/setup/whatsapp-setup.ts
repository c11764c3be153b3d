import { randomBytes } from "node:crypto";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import type { ChannelAdapter } from "../channels/channel.ts";
import { CHANNELS, oneOffDeps } from "../channels/registry.ts";
import { UsageError } from "../cli/exit.ts";
import { loadConfig, parseConfig } from "../config/load.ts";
import { editConfigText } from "../config/sandbox-edit.ts";
import type { Config, SecretRef } from "../config/schema.ts";
import { createSecretStore } from "../config/secret-store.ts";
import { resolveSecret, type SecretDeps } from "../config/secrets.ts";
import { FermixError } from "../error.ts";
import { DEFAULT_WEBHOOK_PORT } from "../gateway/channels-runtime.ts";
import type { ChannelSetupDeps, ChannelSetupFlags } from "./channel-setup.ts";
import { notApplied, setKey } from "./config-edit.ts";
import { createPrompter, type Prompter } from "./prompt.ts";
import { type Checked, orUsage } from "./validate.ts";

const TABLE = "fermix_channels.whatsapp";
const SLOTS = {
  access_token: "WHATSAPP_ACCESS_TOKEN",
  app_secret: "WHATSAPP_APP_SECRET",
  verify_token: "WHATSAPP_VERIFY_TOKEN",
} as const;
type SecretKey = keyof typeof SLOTS;
const MAX_SECRET_CHARS = 2048;

/**
 * `fermix setup --channel whatsapp`: your own WhatsApp number (wa_id), the business number's Phone number ID, the
 * permanent access token and the app secret (piped with --secrets-stdin, one per line, or typed without echo). The
 * token and id are tested with the adapter's own check (GET /{phone_number_id}) before anything is written; the
 * secrets go to the secret store, a verify token is made once for Meta's webhook form, and
 * [fermix_channels.whatsapp] gets enabled = true, the ids and "@keyring" references. It ends with the Meta side:
 * the callback URL (the tunnel to the webhook port) and the verify token to paste.
 */
export async function runWhatsAppSetup(flags: ChannelSetupFlags, deps: ChannelSetupDeps): Promise<void> {
  const { paths, io } = deps;
  const config = await loadConfig(paths.config);
  const core = config.fermix_core;
  const block = ((config.fermix_channels ?? {}) as Record<string, Record<string, unknown> | undefined>).whatsapp ?? {};
  const interactive = io.isTTY && !flags.nonInteractive;
  const prompter = createPrompter(io);
  const ask = interactive ? prompter : undefined;
  const secrets: SecretDeps = { env: deps.env, secretsDir: paths.secrets, profile: core?.profile, run: deps.secretRun };

  if (flags.tokenStdin) {
    throw UsageError(
      "setup: --channel whatsapp reads its secrets with --secrets-stdin (the access token, then the app secret)",
    );
  }
  if (flags.account !== undefined || flags.cliPath !== undefined) {
    throw UsageError("setup: --account and --cli-path go with --channel signal");
  }
  if (flags.ownerUserId !== undefined) orUsage(checkWaId(flags.ownerUserId), "--owner-user-id");
  if (flags.phoneNumberId !== undefined) orUsage(checkPhoneNumberId(flags.phoneNumberId), "--phone-number-id");
  if (interactive) {
    await io.write(
      "fermix setup --channel whatsapp: your WhatsApp number, and from your Meta app's WhatsApp > API Setup the Phone number ID, a permanent access token and (App settings > Basic) the app secret.\n",
    );
  }
  const owner = await idAnswer(
    flags.ownerUserId,
    block.owner_user_id,
    ask,
    "Your own WhatsApp number, country code first (15551234567)",
    checkWaId,
    "--owner-user-id NUMBER (your own WhatsApp number, digits with the country code)",
  );
  const phoneNumberId = await idAnswer(
    flags.phoneNumberId,
    block.phone_number_id,
    ask,
    "The business number's Phone number ID (WhatsApp > API Setup)",
    checkPhoneNumberId,
    "--phone-number-id ID (WhatsApp > API Setup in the Meta app)",
  );
  const given = await secretAnswers(flags, block, secrets, ask, prompter, io.setRawMode !== undefined);
  const verify = keptRef(block.verify_token, SLOTS.verify_token, secrets)
    ? { ref: block.verify_token as SecretRef }
    : fresh(randomBytes(24).toString("base64url"));
  const answers: Record<SecretKey, { ref: SecretRef; value?: string }> = { ...given, verify_token: verify };

  if (flags.skipTest) await io.write("Not testing the access token (--skip-test).\n");
  else {
    await io.write("Testing the access token and the Phone number ID with WhatsApp…\n");
    const check = await testNumber(
      {
        ...block,
        enabled: true,
        owner_user_id: owner,
        phone_number_id: phoneNumberId,
        access_token: answers.access_token.ref,
        app_secret: answers.app_secret.ref,
        verify_token: answers.verify_token.ref,
      },
      deps,
      secrets,
    );
    if (!check.ok) {
      throw new FermixError(
        "setup_probe_failed",
        `WhatsApp refused: ${check.detail}\n  fix: ${check.fix}\nnothing was written; run fermix setup --channel whatsapp again once it is fixed (--skip-test saves it untested)`,
      );
    }
    await io.write(`ok: ${check.detail}\n`);
  }

  const changes: Changes = {
    owner,
    phoneNumberId,
    keyring: (Object.keys(SLOTS) as SecretKey[]).filter((k) => answers[k].value !== undefined),
  };
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
    const slot = SLOTS[key];
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
      ? `config: updated ${paths.config} ([${TABLE}] enabled, owner ${owner}, phone number id ${phoneNumberId})`
      : `config: ${paths.config} already holds these answers; unchanged`,
  );
  const port = config.fermix_web?.webhook_port ?? DEFAULT_WEBHOOK_PORT;
  const verifyToken =
    answers.verify_token.value ?? resolveSecret(answers.verify_token.ref, SLOTS.verify_token, secrets);
  await io.write(
    [
      "",
      ...lines,
      "",
      "In the Meta app, WhatsApp > Configuration > Webhook:",
      `  Callback URL: https://<your tunnel>/webhook/whatsapp  (the tunnel forwards to 127.0.0.1:${port}, the webhook port, and nothing else)`,
      `  Verify token: ${verifyToken}`,
      "  then subscribe the webhook to the messages field.",
      "",
      "Next:",
      "  fermix restart            (the daemon starts the channel and the webhook port)",
      "  fermix channels status",
      "  then send your business number a message from your phone",
      "",
    ].join("\n"),
  );
}

/** A wa_id: the phone number in international form, digits only ("+1 555-123 4567" is taken as 15551234567). */
export function checkWaId(answer: string): Checked<string> {
  const id = answer.trim().replace(/[\s()+-]/g, "");
  if (/^[1-9]\d{6,14}$/.test(id)) return { ok: true, value: id };
  return {
    ok: false,
    error: `"${answer.trim()}" is not a WhatsApp number (digits with the country code, such as 15551234567)`,
  };
}

/** A Graph phone number id: a long number, not the phone number itself. */
export function checkPhoneNumberId(answer: string): Checked<string> {
  const id = answer.trim();
  if (/^\d{6,20}$/.test(id)) return { ok: true, value: id };
  return {
    ok: false,
    error: `"${id}" is not a Phone number ID (a number such as 106540352242922, shown in WhatsApp > API Setup)`,
  };
}

async function idAnswer(
  flag: string | undefined,
  current: unknown,
  ask: Prompter | undefined,
  question: string,
  check: (answer: string) => Checked<string>,
  usage: string,
): Promise<string> {
  if (flag !== undefined) return orUsage(check(flag), usage.split(" ")[0]!);
  const kept = current === undefined ? undefined : String(current);
  if (ask) {
    for (;;) {
      const typed = (await ask.line(`${question}${kept ? ` [${kept}]` : ""}: `)).trim();
      const checked = check(typed || kept || "");
      if (checked.ok) return checked.value;
      await ask.say(`${checked.error}\n`);
    }
  }
  if (kept) return kept;
  throw UsageError(`setup: give ${usage}`);
}

const fresh = (value: string) => ({ ref: value, value });

/** The access token and app secret: piped (one per line), typed without echo, or the configured ones kept. */
async function secretAnswers(
  flags: ChannelSetupFlags,
  block: Record<string, unknown>,
  secrets: SecretDeps,
  ask: Prompter | undefined,
  prompter: Prompter,
  terminal: boolean,
): Promise<Record<"access_token" | "app_secret", { ref: SecretRef; value?: string }>> {
  const questions = { access_token: "Permanent access token", app_secret: "App secret" } as const;
  const out = {} as Record<"access_token" | "app_secret", { ref: SecretRef; value?: string }>;
  for (const key of ["access_token", "app_secret"] as const) {
    if (flags.secretsStdin) {
      // On a terminal "stdin" is the person typing: a no-echo line each.
      const read = (terminal ? await prompter.hidden(`${questions[key]}: `) : await prompter.line(""))
        .trim()
        .slice(0, MAX_SECRET_CHARS + 1);
      out[key] = fresh(orUsage(checkSecret(read, key), "--secrets-stdin"));
      continue;
    }
    const kept = keptRef(block[key], SLOTS[key], secrets);
    if (ask) {
      for (;;) {
        const typed = (
          await ask.hidden(kept ? `${questions[key]} (Enter keeps the configured one): ` : `${questions[key]}: `)
        ).trim();
        if (!typed && kept) {
          out[key] = { ref: block[key] as SecretRef };
          break;
        }
        const checked = checkSecret(typed, key);
        if (checked.ok) {
          out[key] = fresh(checked.value);
          break;
        }
        await ask.say(`${checked.error}\n`);
      }
      continue;
    }
    if (!kept) {
      throw UsageError(
        "setup: pipe the access token and the app secret in with --secrets-stdin, one per line (never on the command line), or run setup on a terminal",
      );
    }
    out[key] = { ref: block[key] as SecretRef };
  }
  return out;
}

/** Never echoed back in an error. */
function checkSecret(answer: string, key: "access_token" | "app_secret"): Checked<string> {
  if (key === "app_secret") {
    return /^[0-9a-f]{32}$/i.test(answer) ||
      (answer.length >= 16 && answer.length <= MAX_SECRET_CHARS && !/\s/.test(answer))
      ? { ok: true, value: answer }
      : { ok: false, error: "that is not an app secret (App settings > Basic shows one: 32 hexadecimal characters)" };
  }
  return answer.length >= 20 && answer.length <= MAX_SECRET_CHARS && !/\s/.test(answer)
    ? { ok: true, value: answer }
    : { ok: false, error: "that is not an access token (a permanent one starts EAA… and is about 200 characters)" };
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

async function testNumber(
  block: Record<string, unknown>,
  deps: ChannelSetupDeps,
  secrets: SecretDeps,
): Promise<Awaited<ReturnType<ChannelAdapter["check"]>>> {
  const quiet = () => {};
  let adapter: ChannelAdapter;
  try {
    adapter = await (deps.channels ?? CHANNELS).whatsapp!(
      oneOffDeps({
        config: block,
        resolveSecret: (ref, slot) => resolveSecret(ref as SecretRef, slot, secrets),
        log: { info: quiet, warn: quiet, error: quiet },
        now: Date.now,
      }),
    );
  } catch (err) {
    return { ok: false, detail: (err as Error)?.message ?? String(err), fix: "fermix setup --channel whatsapp" };
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

type Changes = { owner: string; phoneNumberId: string; keyring: SecretKey[] };

function apply(text: string, changes: Changes, file: string): string {
  let out = setKey(text, TABLE, "enabled", true, file);
  out = setKey(out, TABLE, "owner_user_id", changes.owner, file);
  out = setKey(out, TABLE, "phone_number_id", changes.phoneNumberId, file);
  for (const key of changes.keyring) out = setKey(out, TABLE, key, "@keyring", file);
  return out;
}

function applied(config: Config, changes: Changes): boolean {
  const block = config.fermix_channels?.whatsapp;
  return (
    block?.enabled === true &&
    block.owner_user_id === changes.owner &&
    block.phone_number_id === changes.phoneNumberId &&
    changes.keyring.every((key) => block[key] === "@keyring")
  );
}
