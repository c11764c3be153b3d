import { UsageError } from "../cli/exit.ts";
import type { Env } from "../config/env.ts";
import type { Config } from "../config/schema.ts";
import { providerKeySlot } from "../config/secret-slots.ts";
import { envSecret, resolveSecret, type SecretDeps } from "../config/secrets.ts";
import { EFFORTS, type Effort, type ProviderBlock } from "../config/sections/providers.ts";
import { findProvider, PROVIDERS, type ProviderDescriptor } from "../providers/descriptors.ts";
import { effortLevels, resolveEffort } from "../providers/effort.ts";
import { signInOf } from "../providers/sign-in.ts";
import type { OAuthTarget } from "../providers/types.ts";
import type { Prompter } from "./prompt.ts";
import {
  type Checked,
  checkApiKey,
  checkBaseUrl,
  checkEnvName,
  checkModel,
  checkName,
  checkProvider,
  checkStyle,
  checkTimezone,
  DEFAULT_AGENT_NAME,
  DEFAULT_TIMEZONE,
  orUsage,
} from "./validate.ts";

/** `fermix setup`'s options, as parsed. */
export type SetupFlags = {
  provider?: string;
  model?: string;
  baseUrl?: string;
  apiKeyStdin?: boolean;
  apiKeyEnv?: string;
  skipTest?: boolean;
  /** reasoning_effort for an effort-capable provider: only a level the model accepts (--effort). */
  effort?: Effort;
  name?: string;
  userName?: string;
  timezone?: string;
  /** [fermix_core.personalization] communication_style (--communication-style). */
  communicationStyle?: string;
  /** false: --no-service. */
  service?: boolean;
  system?: boolean;
  /** --non-interactive or --yes. */
  nonInteractive?: boolean;
};

/** The provider half, gathered first so the probe runs before any personal question. */
export type ProviderAnswers = {
  provider: ProviderDescriptor;
  model: string;
  /** Written to the provider's block: given with --base-url, and always for Ollama (its base_url is what configures it). */
  baseUrl?: string;
  /** Where the probe goes: the written URL, else the configured one, else the provider's env var, else its default. */
  probeUrl?: string;
  /** A new key, to be stored and referenced as "@keyring". */
  newKey?: string;
  /** The key config.toml already gives this provider (never stored again, never written). */
  keptKey?: string;
  /** A new key that differs from the configured one: the daemon must restart to use it. */
  keyChanged: boolean;
  /** The provider signs in (Codex always; Anthropic and xAI with auth_mode = "oauth"): no key is asked or kept. */
  signIn?: OAuthTarget;
  /** A reasoning_effort to write; undefined keeps what config.toml says (or the provider's default). */
  effort?: Effort;
};

export type PersonalAnswers = {
  agentName: string;
  userName?: string;
  timezone: string;
  /** undefined: none given, config.toml keeps what it has. */
  communicationStyle?: string;
  service: boolean;
};

export type AnswerDeps = {
  config: Config;
  env: Env;
  secrets: SecretDeps;
  /** Present only when questions may be asked. */
  prompter?: Prompter;
  /** --api-key-stdin: what is piped in, or — when stdin is a terminal — a line typed without echo. */
  readStdinKey(question: string): Promise<string>;
  /** Whether the service step can run at all (a built binary on a supported platform). */
  serviceAvailable: boolean;
};

/**
 * Every answer setup needs comes, before anything is written, from a flag, else from a question when the
 * wizard is interactive, else from what config.toml already says, else the documented default. A required
 * answer that none of these gives is a usage error naming the flag that gives it. All flags are checked
 * here, first, so a typo in --timezone never costs a provider test.
 */
export async function gatherProvider(flags: SetupFlags, deps: AnswerDeps): Promise<ProviderAnswers> {
  const { config, env, prompter } = deps;
  checkFlags(flags);
  const blocks = (config.fermix_core?.providers ?? {}) as Record<string, ProviderBlock | undefined>;
  const current = currentPrimary(config);

  let provider: ProviderDescriptor;
  if (flags.provider !== undefined) provider = orUsage(checkProvider(flags.provider), "--provider");
  else if (prompter) provider = await askProvider(prompter, current ?? "openai");
  else if (current) provider = findProvider(current)!;
  else throw UsageError(`setup: choose a provider with --provider (one of: ${PROVIDERS.map((p) => p.id).join(", ")})`);
  const block = blocks[provider.id] ?? {};
  if (provider.keyless && (flags.apiKeyStdin || flags.apiKeyEnv)) {
    throw UsageError(`setup: ${provider.label} needs no API key; leave out --api-key-stdin / --api-key-env`);
  }

  let baseUrl = flags.baseUrl !== undefined ? orUsage(checkBaseUrl(flags.baseUrl), "--base-url") : undefined;
  const envUrl = provider.env.baseUrl ? env[provider.env.baseUrl] : undefined;
  if (provider.keyless && baseUrl === undefined) {
    const known = block.base_url ?? envUrl ?? provider.defaultBaseUrl;
    baseUrl = await answer(undefined, "--base-url", `${provider.label} server URL`, known, checkBaseUrl, prompter);
  }
  const model = await answer(
    flags.model,
    "--model",
    "Model",
    block.default_model ?? provider.defaultModel,
    checkModel,
    prompter,
  );
  const effort = await effortAnswer(flags.effort, provider, model, block.reasoning_effort, prompter);
  const signIn = signInOf(provider, block, deps.secrets);
  if (signIn && (flags.apiKeyStdin || flags.apiKeyEnv)) {
    throw UsageError(
      provider.authModes.includes("api_key")
        ? `setup: [fermix_core.providers.${provider.id}] signs in (auth_mode = "oauth"), so it takes no API key; leave out --api-key-stdin / --api-key-env, or go back to a key with fermix auth logout --provider ${provider.id}`
        : `setup: ${provider.label} signs in with ${signIn.login} and takes no API key; leave out --api-key-stdin / --api-key-env`,
    );
  }
  const probeUrl = baseUrl ?? block.base_url ?? envUrl;
  if (signIn) return { provider, model, baseUrl, probeUrl, keyChanged: false, signIn, effort };
  const key = provider.keyless ? { keyChanged: false } : await gatherKey(provider, block, flags, deps);
  return { provider, model, baseUrl, probeUrl, ...key, effort };
}

export async function gatherPersonal(flags: SetupFlags, deps: AnswerDeps): Promise<PersonalAnswers> {
  const { prompter } = deps;
  const core = deps.config.fermix_core;
  const agentName = await answer(
    flags.name,
    "--name",
    "Your assistant's name",
    core?.agent?.name?.trim() || DEFAULT_AGENT_NAME,
    (a) => checkName(a, "the name"),
    prompter,
  );
  const userName = await userNameAnswer(flags.userName, core?.personalization?.user_name, prompter);
  const timezone = await answer(
    flags.timezone,
    "--timezone",
    "Your time zone",
    core?.personalization?.timezone || DEFAULT_TIMEZONE,
    checkTimezone,
    prompter,
  );
  const communicationStyle = await styleAnswer(
    flags.communicationStyle,
    core?.personalization?.communication_style,
    prompter,
  );
  let service = flags.service !== false;
  if (service && flags.service === undefined && prompter && deps.serviceAvailable) {
    service = await askYes(prompter, "Install the background service so fermix runs at login?", true);
  }
  return { agentName, userName, timezone, communicationStyle, service };
}

/**
 * The provider config.toml makes primary now: the one flagged, else the legacy [fermix_core.agent] provider
 * when configured, else the first configured (as routes picks).
 */
export function currentPrimary(config: Config): string | undefined {
  const blocks = (config.fermix_core?.providers ?? {}) as Record<string, ProviderBlock | undefined>;
  const configured = PROVIDERS.filter((p) => blocks[p.id]).map((p) => p.id);
  const legacy = config.fermix_core?.agent?.provider;
  return (
    configured.find((id) => blocks[id]!.primary === true) ?? configured.find((id) => id === legacy) ?? configured[0]
  );
}

/** Flags checked before anything is asked or read, so a typo never costs a round of questions. */
function checkFlags(flags: SetupFlags) {
  if (flags.provider !== undefined) orUsage(checkProvider(flags.provider), "--provider");
  if (flags.baseUrl !== undefined) orUsage(checkBaseUrl(flags.baseUrl), "--base-url");
  if (flags.model !== undefined) orUsage(checkModel(flags.model), "--model");
  if (flags.name !== undefined) orUsage(checkName(flags.name, "the name"), "--name");
  if (flags.userName !== undefined) orUsage(checkName(flags.userName, "the name"), "--user-name");
  if (flags.timezone !== undefined) orUsage(checkTimezone(flags.timezone), "--timezone");
  if (flags.communicationStyle !== undefined) orUsage(checkStyle(flags.communicationStyle), "--communication-style");
  if (flags.effort !== undefined && !(EFFORTS as readonly string[]).includes(flags.effort)) {
    throw UsageError(`setup: --effort: "${flags.effort}" is not a reasoning effort (one of ${EFFORTS.join(", ")})`);
  }
  if (flags.apiKeyEnv !== undefined) orUsage(checkEnvName(flags.apiKeyEnv), "--api-key-env");
  if (flags.apiKeyStdin && flags.apiKeyEnv !== undefined) {
    throw UsageError("setup: choose one of --api-key-stdin and --api-key-env");
  }
}

async function gatherKey(
  d: ProviderDescriptor,
  block: ProviderBlock,
  flags: SetupFlags,
  deps: AnswerDeps,
): Promise<{ newKey?: string; keptKey?: string; keyChanged: boolean }> {
  const kept = configuredKey(d, block, deps.secrets);
  const given = (newKey: string) => ({ newKey, keyChanged: newKey !== kept });
  if (flags.apiKeyEnv !== undefined) {
    const value = envSecret(deps.env, flags.apiKeyEnv);
    if (!value) throw UsageError(`setup: --api-key-env: ${flags.apiKeyEnv} is not set (or empty)`);
    return given(orUsage(checkApiKey(value), "--api-key-env"));
  }
  if (flags.apiKeyStdin) {
    return given(orUsage(checkApiKey(await deps.readStdinKey(`${d.label} API key: `)), "--api-key-stdin"));
  }
  if (deps.prompter) {
    const where = d.keyHelp ? ` (from ${d.keyHelp})` : "";
    const question = kept ? `${d.label} API key (Enter keeps the configured one): ` : `${d.label} API key${where}: `;
    for (;;) {
      const answer = await deps.prompter.hidden(question);
      if (!answer.trim() && kept) return { keptKey: kept, keyChanged: false };
      const checked = checkApiKey(answer);
      if (checked.ok) return given(checked.value);
      await writeProblem(deps.prompter, checked.error);
    }
  }
  if (kept) return { keptKey: kept, keyChanged: false };
  const slot = providerKeySlot(d);
  const exported = deps.env[slot] ? ` (${slot} is set here: --api-key-env ${slot} stores it)` : "";
  throw UsageError(
    `setup: ${d.label} needs an API key: pipe it with --api-key-stdin (echo "$KEY" | fermix setup --api-key-stdin …) or name a variable that holds it with --api-key-env VAR${exported}`,
  );
}

/** The key config.toml already resolves to for this provider, if it does. */
function configuredKey(d: ProviderDescriptor, block: ProviderBlock, secrets: SecretDeps): string | undefined {
  if (block.api_key === undefined) return undefined;
  try {
    return resolveSecret(block.api_key, providerKeySlot(d), secrets) || undefined;
  } catch {
    return undefined;
  }
}

/** The flag, else the question (Enter takes `known`), else `known` — checked like the flag, since config.toml may hold anything. */
async function answer<T>(
  flag: string | undefined,
  flagName: string,
  question: string,
  known: string,
  check: (answer: string) => Checked<T>,
  prompter: Prompter | undefined,
): Promise<T> {
  if (flag !== undefined) return orUsage(check(flag), flagName);
  if (prompter) return askChecked(prompter, question, known, check);
  return orUsage(check(known), flagName);
}

async function userNameAnswer(
  flag: string | undefined,
  known: string | undefined,
  prompter: Prompter | undefined,
): Promise<string | undefined> {
  if (flag !== undefined) return orUsage(checkName(flag, "the name"), "--user-name");
  if (!prompter) return known || undefined;
  const shown = known ? ` [${known}]` : " (optional)";
  for (;;) {
    const answer = (await prompter.line(`Your name${shown}: `)).trim();
    if (!answer) return known || undefined;
    const checked = checkName(answer, "the name");
    if (checked.ok) return checked.value;
    await writeProblem(prompter, checked.error);
  }
}

/**
 * reasoning_effort, for an effort-capable provider only, and only a level `model` accepts (the web page's list):
 * the flag, else the question (Enter keeps the configured level, else the provider's default), else nothing new.
 */
async function effortAnswer(
  flag: Effort | undefined,
  provider: ProviderDescriptor,
  model: string,
  configured: Effort | undefined,
  prompter: Prompter | undefined,
): Promise<Effort | undefined> {
  const levels = effortLevels(provider, model);
  if (flag !== undefined) {
    if (!levels.length) throw UsageError(`setup: --effort: ${provider.label} has no reasoning-effort setting`);
    if (!levels.includes(flag)) {
      throw UsageError(`setup: --effort: ${model} accepts ${levels.join(", ")} (not "${flag}")`);
    }
    return flag;
  }
  if (!prompter || !levels.length) return undefined;
  // A configured level above this model's ceiling is what a turn would clamp it to.
  const known = configured ? resolveEffort(provider, model, configured) : undefined;
  if (prompter.choose) {
    const picked = await prompter.choose(
      "Reasoning effort",
      [{ value: "", label: "the provider's default" }, ...levels.map((e) => ({ value: e, label: e }))],
      known ?? "",
    );
    return levels.find((e) => e === picked);
  }
  const shown = known ? ` [${known}]` : " (Enter: the provider's default)";
  for (;;) {
    const answer = (await prompter.line(`Reasoning effort, one of ${levels.join(", ")}${shown}: `))
      .trim()
      .toLowerCase();
    if (!answer) return known;
    if ((levels as string[]).includes(answer)) return answer as Effort;
    await writeProblem(prompter, `${model} accepts ${levels.join(", ")}`);
  }
}

/** [fermix_core.personalization] communication_style: optional; Enter keeps what config.toml says. */
async function styleAnswer(
  flag: string | undefined,
  known: string | undefined,
  prompter: Prompter | undefined,
): Promise<string | undefined> {
  if (flag !== undefined) return orUsage(checkStyle(flag), "--communication-style");
  if (!prompter) return undefined;
  // A long or several-line style (typed on the web page) is shown by its start.
  const line = known?.split("\n")[0] ?? "";
  const brief = line.length > 40 || line !== known ? `${line.slice(0, 40)}…` : line;
  const shown = known ? ` [${brief}]` : ' (optional, e.g. "brief and direct")';
  for (;;) {
    const answer = (await prompter.line(`How should your assistant talk to you?${shown}: `)).trim();
    if (!answer) return undefined;
    const checked = checkStyle(answer);
    if (checked.ok) return checked.value;
    await writeProblem(prompter, checked.error);
  }
}

async function askProvider(prompter: Prompter, known: string): Promise<ProviderDescriptor> {
  const entry = (p: ProviderDescriptor) => `${p.id.padEnd(12)} ${p.label}${p.keyless ? " (local, no key)" : ""}`;
  if (prompter.choose) {
    const id = await prompter.choose(
      "Provider",
      PROVIDERS.map((p) => ({ value: p.id, label: entry(p) })),
      known,
    );
    return orUsage(checkProvider(id), "--provider");
  }
  const menu = PROVIDERS.map((p, i) => `  ${i + 1}) ${entry(p)}`);
  return askChecked(prompter, `Providers:\n${menu.join("\n")}\nProvider`, known, checkProvider);
}

/** Asks until the answer passes `check`; Enter takes `known`. */
async function askChecked<T>(
  prompter: Prompter,
  question: string,
  known: string,
  check: (answer: string) => Checked<T>,
): Promise<T> {
  for (;;) {
    const answer = (await prompter.line(`${question} [${known}]: `)).trim();
    const checked = check(answer || known);
    if (checked.ok) return checked.value;
    await writeProblem(prompter, checked.error);
  }
}

async function askYes(prompter: Prompter, question: string, byDefault: boolean): Promise<boolean> {
  if (prompter.confirm) return prompter.confirm(question, byDefault);
  for (;;) {
    const answer = (await prompter.line(`${question} [${byDefault ? "Y/n" : "y/N"}]: `)).trim().toLowerCase();
    if (!answer) return byDefault;
    if (answer === "y" || answer === "yes") return true;
    if (answer === "n" || answer === "no") return false;
    await writeProblem(prompter, 'answer "y" or "n"');
  }
}

async function writeProblem(prompter: Prompter, problem: string) {
  await prompter.say(`  ${problem}\n`);
}
