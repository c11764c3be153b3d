import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import type { ChannelAdapter } from "../channels/channel.ts";
import { CHANNELS, oneOffDeps } from "../channels/registry.ts";
import { UsageError } from "../cli/exit.ts";
import { loadConfig, parseConfig } from "../config/load.ts";
import { editConfigText } from "../config/sandbox-edit.ts";
import type { Config } from "../config/schema.ts";
import { createSecretStore } from "../config/secret-store.ts";
import { resolveSecret, type SecretDeps } from "../config/secrets.ts";
import type { SecretRef } from "../config/sections/secret-ref.ts";
import { FermixError } from "../error.ts";
import type { ChannelSetupDeps, ChannelSetupFlags } from "./channel-setup-contract.ts";
import { notApplied, setKey } from "./config-edit.ts";
import { createPrompter, type Prompter } from "./prompt.ts";
import { type Checked, orUsage } from "./validate.ts";

/*
 * The steps every `fermix setup --channel NAME` shares: the channel's table and secrets as config.toml has them,
 * the answer loops, the check with the adapter before anything is written, the secrets to the store, the in-place
 * edit of [fermix_channels.NAME], and the closing report. Each channel's file declares its questions and keys.
 */

/** A flag that belongs to another channel, and the sentence that says so. */
export type FlagRule = [flags: (keyof ChannelSetupFlags)[], message: string];
export const SIGNAL_FLAGS: FlagRule = [
  ["account", "cliPath"],
  "setup: --account and --cli-path go with --channel signal",
];
export const SLACK_FLAGS: FlagRule = [["mode"], "setup: --mode goes with --channel slack"];
export const WHATSAPP_FLAGS: FlagRule = [["phoneNumberId"], "setup: --phone-number-id goes with --channel whatsapp"];

/** Refuses, in the order given, the first rule whose flags were passed. */
export function refuseFlags(flags: ChannelSetupFlags, rules: FlagRule[]): void {
  for (const [names, message] of rules) {
    if (names.some((name) => (typeof flags[name] === "boolean" ? flags[name] : flags[name] !== undefined))) {
      throw UsageError(message);
    }
  }
}

export type ChannelContext = {
  config: Config;
  /** [fermix_channels.NAME] as config.toml has it now ({} when absent). */
  block: Record<string, unknown>;
  interactive: boolean;
  prompter: Prompter;
  /** The prompter when questions may be asked (a terminal, no --non-interactive). */
  ask: Prompter | undefined;
  secrets: SecretDeps;
  flags: ChannelSetupFlags;
  /** Whether input is a terminal (echo can be turned off), even when the answers are piped. */
  terminal: boolean;
};

export async function openChannelSetup(
  name: string,
  flags: ChannelSetupFlags,
  deps: ChannelSetupDeps,
): Promise<ChannelContext> {
  const { paths, io } = deps;
  const config = await loadConfig(paths.config);
  const profile = config.fermix_core?.profile;
  const block = ((config.fermix_channels ?? {}) as Record<string, Record<string, unknown> | undefined>)[name] ?? {};
  const interactive = io.isTTY && !flags.nonInteractive;
  const prompter = createPrompter(io);
  const secrets: SecretDeps = { env: deps.env, secretsDir: paths.secrets, profile, run: deps.secretRun };
  const ask = interactive ? prompter : undefined;
  return { config, block, interactive, prompter, ask, secrets, flags, terminal: io.setRawMode !== undefined };
}

/**
 * One id-like answer: the flag when given (checked), else asked with the configured value as the default, else the
 * configured value, else a usage error. `recheck` runs the configured value through `check` too.
 */
export async function askAnswer<T extends string = string>(
  q: {
    given: string | undefined;
    flag: string;
    current: unknown;
    question: string;
    check: (answer: string) => Checked<T>;
    missing: string;
    recheck?: boolean;
  },
  ask: Prompter | undefined,
): Promise<T> {
  if (q.given !== undefined) return orUsage(q.check(q.given), q.flag);
  const kept = q.current === undefined ? undefined : String(q.current);
  if (ask) {
    for (;;) {
      const typed = (await ask.line(`${q.question}${kept ? ` [${kept}]` : ""}: `)).trim();
      const checked = q.check(typed || kept || "");
      if (checked.ok) return checked.value;
      await ask.say(`${checked.error}\n`);
    }
  }
  if (kept) return q.recheck ? orUsage(q.check(kept), q.flag) : (kept as T);
  throw UsageError(q.missing);
}

/** A secret the channel keeps in the store: its config key, its slot, and how it is asked for. */
export type SecretSpec = {
  key: string;
  slot: string;
  /** "Bot token": asked as `Bot token (hint): `, or `Bot token (Enter keeps the configured one): `. */
  question: string;
  hint?: string;
  /** The no-echo prompt when the secrets are piped on a terminal (default `question: `). */
  piped?: string;
  /** Names it in the report with a kept line too ("bot token"); without it the report names the key. */
  label?: string;
  check: (answer: string) => Checked<string>;
};

/** The secret to test (`ref`) and, when it is new, the value to store (`value`). */
export type SecretAnswer = { ref: SecretRef; value?: string };
export const fresh = (value: string): SecretAnswer => ({ ref: value, value });

/**
 * How a channel's secrets come in without a terminal: --bot-token-stdin, one token, all the rest of stdin; or
 * --secrets-stdin, a line each, in order. `missing` is the usage error when nothing is piped, none is configured
 * and nobody can be asked.
 */
export type PipedSecrets = { via: "--bot-token-stdin" | "--secrets-stdin"; missing: string };
export const PIPED_BOT_TOKEN: PipedSecrets = {
  via: "--bot-token-stdin",
  missing:
    "setup: pipe the bot token in with --bot-token-stdin (it is never read from the command line), or run setup on a terminal",
};
const MAX_TOKEN_BYTES = 4096;

/** Each secret in turn: piped, typed without echo, or the configured one kept. */
export async function askSecrets(
  specs: SecretSpec[],
  piped: PipedSecrets,
  ctx: ChannelContext,
): Promise<Record<string, SecretAnswer>> {
  const { block, secrets, ask, prompter, terminal } = ctx;
  const whole = piped.via === "--bot-token-stdin";
  const out: Record<string, SecretAnswer> = {};
  for (const spec of specs) {
    if (whole ? ctx.flags.tokenStdin : ctx.flags.secretsStdin) {
      // On a terminal "stdin" is the person typing: a no-echo line, not a wait for end of input.
      const read = terminal
        ? await prompter.hidden(spec.piped ?? `${spec.question}: `)
        : whole
          ? await prompter.rest(MAX_TOKEN_BYTES)
          : await prompter.line("");
      out[spec.key] = fresh(orUsage(spec.check(read), piped.via));
      continue;
    }
    const ref = block[spec.key];
    const kept = keptRef(ref, spec.slot, secrets);
    out[spec.key] = ask ? await typeSecret(spec, ref, kept, ask) : keptOr(ref, kept, piped.missing);
  }
  return out;
}

async function typeSecret(spec: SecretSpec, ref: unknown, kept: boolean, ask: Prompter): Promise<SecretAnswer> {
  const question = kept
    ? `${spec.question} (Enter keeps the configured one): `
    : `${spec.question}${spec.hint ? ` (${spec.hint})` : ""}: `;
  for (;;) {
    const typed = (await ask.hidden(question)).trim();
    if (!typed && kept) return { ref: ref as SecretRef };
    const checked = spec.check(typed);
    if (checked.ok) return fresh(checked.value);
    await ask.say(`${checked.error}\n`);
  }
}

function keptOr(ref: unknown, kept: boolean, missing: string): SecretAnswer {
  if (kept) return { ref: ref as SecretRef };
  throw UsageError(missing);
}

/** Whether config.toml already gives this secret and it resolves (a "@keyring" one that is really there). */
export function keptRef(ref: unknown, slot: string, secrets: SecretDeps): boolean {
  if (ref === undefined) return false;
  try {
    return resolveSecret(ref as SecretRef, slot, secrets).trim() !== "";
  } catch {
    return false;
  }
}

type Refusal = { ok: false; detail: string; fix: string };

/**
 * The check before anything is written: `--skip-test` says so and goes on; a refusal writes nothing and says what to
 * fix. `words.what` is what is tested ("the bot token"), `words.with` the platform, `words.refused` the error's head.
 */
export async function probe<T extends { ok: true; detail: string }>(
  name: string,
  flags: ChannelSetupFlags,
  deps: ChannelSetupDeps,
  words: { what: string; with: string; refused: string },
  run: () => Promise<T | Refusal>,
): Promise<T | undefined> {
  if (flags.skipTest) {
    await deps.io.write(`Not testing ${words.what} (--skip-test).\n`);
    return undefined;
  }
  await deps.io.write(`Testing ${words.with}…\n`);
  const check = await run();
  if (!check.ok) {
    throw new FermixError(
      "setup_probe_failed",
      `${words.refused}: ${check.detail}\n  fix: ${check.fix}\nnothing was written; run fermix setup --channel ${name} again once it is fixed (--skip-test saves it untested)`,
    );
  }
  await deps.io.write(`ok: ${check.detail}\n`);
  return check;
}

/** `work`, or a refusal once `ms` pass without an answer. */
export function withDeadline<T>(work: Promise<T>, ms: number): Promise<T | Refusal> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const late = new Promise<Refusal>((resolve) => {
    timer = setTimeout(
      () => resolve({ ok: false, detail: `no answer within ${ms / 1000} s`, fix: "check the network and try again" }),
      ms,
    );
  });
  return Promise.race([work, late]).finally(() => clearTimeout(timer));
}

/** The adapter's own check on the table as it would be written, with the answers' secrets. */
export async function checkWithAdapter(
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
  return withDeadline(adapter.check(), deps.checkTimeoutMs ?? 10_000);
}

/** The keys to set in [fermix_channels.NAME], in order; undefined ones are left as they are. */
export type ChannelKeys = Record<string, string | boolean | undefined>;

function applyKeys(text: string, name: string, keys: ChannelKeys, file: string): string {
  let out = text;
  for (const [key, value] of Object.entries(keys)) {
    if (value !== undefined) out = setKey(out, `fermix_channels.${name}`, key, value, file);
  }
  return out;
}

function keysApplied(config: Config, name: string, keys: ChannelKeys): boolean {
  const block = ((config.fermix_channels ?? {}) as Record<string, Record<string, unknown> | undefined>)[name];
  return !!block && Object.entries(keys).every(([key, value]) => value === undefined || block[key] === value);
}

/** Edits [fermix_channels.NAME] in place (comments and other keys kept); whether the file changed. */
export function writeChannelKeys(name: string, keys: ChannelKeys, file: string): boolean {
  return editConfigText(
    file,
    `fermix_channels.${name}`,
    (text) => {
      const edited = applyKeys(text, name, keys, file);
      return edited === text ? null : edited;
    },
    (c) => keysApplied(c, name, keys),
  ).changed;
}

export function configLine(changed: boolean, file: string, name: string, summary: string): string {
  return changed
    ? `config: updated ${file} ([fermix_channels.${name}] ${summary})`
    : `config: ${file} already holds these answers; unchanged`;
}

/**
 * Checks the edit without writing (so a file the owner must fix first leaves no orphan secret), stores the new
 * secrets, sets `keys` plus `KEY = "@keyring"` for each of them, and returns the report's lines.
 */
export async function saveChannel(
  name: string,
  deps: ChannelSetupDeps,
  ctx: ChannelContext,
  save: {
    keys: ChannelKeys;
    summary: string;
    specs: Pick<SecretSpec, "key" | "slot" | "label">[];
    answers: Record<string, SecretAnswer>;
  },
): Promise<string[]> {
  const file = deps.paths.config;
  const stored = save.specs.filter((spec) => save.answers[spec.key]?.value !== undefined);
  const keys: ChannelKeys = { ...save.keys };
  for (const spec of stored) keys[spec.key] = "@keyring";
  const before = existsSync(file) ? readFileSync(file, "utf8") : "";
  const after = applyKeys(before, name, keys, file);
  if (after !== before && !keysApplied(parseConfig(after, file), name, keys)) throw notApplied(file);

  const lines: string[] = [];
  const core = ctx.config.fermix_core;
  const store =
    deps.store ??
    createSecretStore({
      secretsDir: deps.paths.secrets,
      profile: core?.profile,
      prefer: core?.secret_store === "file" ? "file" : undefined,
    });
  for (const spec of save.specs) {
    const value = save.answers[spec.key]?.value;
    if (value === undefined) {
      if (spec.label) lines.push(`${spec.label}: kept the one config.toml already gives`);
      continue;
    }
    const { where } = await store.store(spec.slot, value);
    const place =
      where === "keyring"
        ? `the OS keyring (${spec.slot})`
        : `the file store, ${join(deps.paths.secrets, spec.slot)} (0600)`;
    lines.push(
      spec.label
        ? `${spec.label}: stored in ${place}; config.toml points at it with ${spec.key} = "@keyring"`
        : `${spec.key}: stored in ${place}; config.toml says ${spec.key} = "@keyring"`,
    );
  }
  lines.unshift(configLine(writeChannelKeys(name, keys, file), file, name, save.summary));
  return lines;
}

/** The closing report: what was done, what to do on the platform's side, then the next commands. */
export async function report(
  deps: ChannelSetupDeps,
  lines: string[],
  platform: string[],
  next: { firstMessage: string; restart?: string },
): Promise<void> {
  await deps.io.write(
    [
      "",
      ...lines,
      "",
      ...platform,
      "Next:",
      `  fermix restart            (${next.restart ?? "the daemon starts the channel when it starts"})`,
      "  fermix channels status",
      `  then ${next.firstMessage}`,
      "",
    ].join("\n"),
  );
}
