import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { reconcileAgentName, seedPromptFiles } from "../agent/prompt-files.ts";
import type { Env } from "../config/env.ts";
import { loadConfig } from "../config/load.ts";
import type { FermixPaths } from "../config/paths.ts";
import { providerKeySlot } from "../config/secret-slots.ts";
import { createSecretStore, type SecretStore } from "../config/secret-store.ts";
import type { SecretDeps } from "../config/secrets.ts";
import { FermixError, isFermixError } from "../error.ts";
import { probeProvider } from "../providers/probe.ts";
import type { ServiceScope } from "../service/service-target.ts";
import { type AnswerDeps, gatherPersonal, gatherProvider, type ProviderAnswers, type SetupFlags } from "./answers.ts";
import { previewSetup, type SetupChanges, writeSetup } from "./config-edit.ts";
import { createPrompter, type SetupIo, type StatusKind } from "./prompt.ts";
import { planSetupService, runServiceStep, type ServiceDeps, type ServiceStep } from "./service-step.ts";

/**
 * `fermix setup`: every answer is gathered (and the provider tested) before anything is written, so a
 * refusal at any point leaves FERMIX_HOME as it was. Then the key goes to the secret store, config.toml is
 * edited in place, the prompt files are seeded, and the service is installed or healed. The key is never
 * written anywhere but the secret store: not to config.toml, not to the output, not to an error.
 */
export type SetupDeps = {
  env: Env;
  paths: FermixPaths;
  io: SetupIo;
  fetch?: typeof fetch;
  probeTimeoutMs?: number;
  /** The OS keyring with the file store behind it, as [fermix_core] secret_store says, by default. */
  store?: SecretStore;
  /** How a configured "@keyring"/command key is looked up (tests hand in a fake keyring). */
  secretRun?: SecretDeps["run"];
  service: Omit<ServiceDeps, "env">;
  uid?: number;
};

export const SetupProbeFailed = (message: string) => new FermixError("setup_probe_failed", message);

const MAX_KEY_BYTES = 64 * 1024;

/** What setup did that its caller acts on: whether the service step (re)started the daemon. */
export type SetupOutcome = { serviceStarted: boolean };

export async function runSetup(flags: SetupFlags, deps: SetupDeps): Promise<SetupOutcome> {
  const { env, paths, io } = deps;
  const config = await loadConfig(paths.config);
  const core = config.fermix_core;
  const scope: ServiceScope = flags.system ? "system" : "user";
  const uid = deps.uid ?? process.getuid?.() ?? 0;
  if (flags.system && flags.service !== false && uid !== 0) {
    throw new FermixError(
      "needs_root",
      "the system service needs root: run setup with sudo, or leave out --system for a user service",
    );
  }
  const serviceDeps: ServiceDeps = { ...deps.service, env };
  const planned = flags.service === false ? undefined : planSetupService(scope, serviceDeps);

  const prompter = createPrompter(io);
  const interactive = io.isTTY && !flags.nonInteractive;
  if (interactive) {
    await io.write(
      "fermix setup: a model provider, a few personal details, then the service. Enter keeps the [value].\n",
    );
  }
  const answerDeps: AnswerDeps = {
    config,
    env,
    secrets: { env, secretsDir: paths.secrets, profile: core?.profile, run: deps.secretRun },
    prompter: interactive ? prompter : undefined,
    // On a terminal "stdin" is the person typing: a no-echo line, not a wait for end of input.
    readStdinKey: (question) => (io.setRawMode ? prompter.hidden(question) : prompter.rest(MAX_KEY_BYTES)),
    serviceAvailable: planned?.ok === true,
  };
  const chosen = await gatherProvider(flags, answerDeps);
  if (chosen.signIn) await requireSignIn(chosen);
  await testProvider(chosen, flags, deps);
  const answers = { ...chosen, ...(await gatherPersonal(flags, answerDeps)) };

  const changes: SetupChanges = {
    provider: answers.provider.id,
    model: answers.model,
    baseUrl: answers.baseUrl,
    reasoningEffort: answers.effort,
    keyring: answers.newKey !== undefined,
    agentName: answers.agentName,
    userName: answers.userName,
    timezone: answers.timezone,
    communicationStyle: answers.communicationStyle,
  };
  const before = existsSync(paths.config) ? readFileSync(paths.config, "utf8") : "";
  previewSetup(before, changes, paths.config);

  const lines: SummaryLine[] = [];
  const slot = providerKeySlot(answers.provider);
  if (answers.newKey !== undefined) {
    const preferFile = core?.secret_store === "file";
    const store =
      deps.store ??
      createSecretStore({ secretsDir: paths.secrets, profile: core?.profile, prefer: preferFile ? "file" : undefined });
    const { where } = await store.store(slot, answers.newKey);
    const why = preferFile ? 'as [fermix_core] secret_store = "file" asks' : "since no OS keyring took it";
    const place =
      where === "keyring" ? `the OS keyring (${slot})` : `the file store, ${join(paths.secrets, slot)} (0600), ${why}`;
    lines.push(ok(`API key: stored in ${place}; config.toml points at it with api_key = "@keyring"`));
  } else if (answers.keptKey !== undefined) {
    lines.push(ok(`API key: kept the one config.toml already gives ${answers.provider.label}`));
  } else if (answers.signIn) {
    lines.push(ok(`API key: none; ${answers.provider.label} uses the sign-in of ${answers.signIn.login}`));
  } else {
    lines.push(ok(`API key: none needed for ${answers.provider.label} (${answers.baseUrl})`));
  }

  const { changed } = writeSetup(paths.config, changes);
  const what = `primary provider ${answers.provider.id}, model ${answers.model}, assistant "${answers.agentName}", time zone ${answers.timezone}`;
  lines.unshift(
    ok(
      changed
        ? `config: updated ${paths.config} (${what})`
        : `config: ${paths.config} already holds these answers; unchanged`,
    ),
  );
  const seeded = seedPromptFiles(paths, answers.agentName);
  reconcileAgentName(paths, answers.agentName);
  if (seeded.length)
    lines.push(ok(`prompt files: wrote ${seeded.length} starting files (IDENTITY.md, USER.md, …) in ${paths.home}`));

  let failure: unknown;
  let serviceStarted = false;
  if (!answers.service) {
    lines.push({
      kind: "info",
      text:
        flags.service === false
          ? "service: skipped (--no-service); fermix ask works without it, fermix start runs the daemon in the background"
          : "service: skipped; install it later with fermix service install",
    });
  } else if (planned && !planned.ok) {
    lines.push({ kind: "warn", text: `service: skipped: ${planned.reason}` });
  } else if (planned?.ok) {
    try {
      // The daemon reads config.toml and resolves the key once, at start.
      const stale = changed || answers.keyChanged;
      lines.push(ok(describeService(await runServiceStep(planned.plan, stale, serviceDeps)).join("\n")));
      serviceStarted = true;
    } catch (err) {
      failure = err;
      lines.push({ kind: "fail", text: "service: not installed (see below)" });
    }
  }

  await writeSummary(io, lines);
  if (failure !== undefined) {
    const reason = failure instanceof Error ? failure.message : String(failure);
    throw new FermixError(
      isFermixError(failure) ? failure.code : "service_command_failed",
      `${reason}\nconfig.toml and the key are saved; once this is fixed, run fermix setup again (or fermix service install${flags.system ? " --system" : ""})`,
    );
  }
  return { serviceStarted };
}

/** A provider that signs in needs a sign-in before setup makes it primary; without one, say how to get it. */
async function requireSignIn(answers: ProviderAnswers): Promise<void> {
  try {
    await answers.signIn!.tokens.token();
  } catch (err) {
    const reason = err instanceof Error ? err.message : String(err);
    throw new FermixError(
      "auth_not_logged_in",
      `${answers.provider.label} signs in instead of using an API key, and that sign-in is not usable: ${reason}\nrun ${answers.signIn!.login}, then fermix setup again; nothing was written`,
    );
  }
}

/** One probe of the chosen provider; a failure stops setup before anything is written. */
async function testProvider(answers: ProviderAnswers, flags: SetupFlags, deps: SetupDeps): Promise<void> {
  const { io } = deps;
  const label = answers.provider.label;
  if (flags.skipTest) {
    await status(io, "info", `Not testing ${label} (--skip-test).`);
    return;
  }
  await status(io, "info", `Testing ${label} (${answers.model})…`);
  const result = await probeProvider(
    {
      provider: answers.provider.id,
      apiKey: answers.newKey ?? answers.keptKey,
      baseUrl: answers.probeUrl,
      model: answers.model,
      ...(answers.signIn ? { oauth: answers.signIn } : {}),
    },
    { fetch: deps.fetch, timeoutMs: deps.probeTimeoutMs },
  );
  if (result.status === "fail") {
    const fix = result.fix ? `\n  fix: ${result.fix}` : "";
    throw SetupProbeFailed(
      `${label} failed the test: ${result.detail}${fix}\nnothing was written; run fermix setup again once it is fixed (--skip-test saves the answers untested)`,
    );
  }
  if (result.status === "warn") {
    const fix = result.fix ? `\n  fix: ${result.fix}` : "";
    await status(io, "warn", `warning: ${result.detail}${fix}`, `${result.detail}${fix}`);
    return;
  }
  await status(io, "ok", `ok: ${result.detail}`, result.detail);
}

type SummaryLine = { kind: StatusKind; text: string };
const ok = (text: string): SummaryLine => ({ kind: "ok", text });

/**
 * A status line: consola's icon and colour on a terminal (where the icon says what "ok: " or "warning: "
 * said), else the plain words setup has always written, which scripts and the tests read.
 */
function status(io: SetupIo, kind: StatusKind, plain: string, onTerminal = plain): Promise<void> {
  return io.ui ? io.ui.status(kind, onTerminal) : io.write(`${plain}\n`);
}

async function writeSummary(io: SetupIo, lines: SummaryLine[]): Promise<void> {
  const next = 'Next:\n  fermix ask "hello"\n  fermix status\n';
  if (!io.ui) return io.write(`\n${lines.map((l) => l.text).join("\n")}\n\n${next}`);
  await io.write("\n");
  for (const line of lines) await io.ui.status(line.kind, line.text);
  await io.write(`\n${next}`);
}

function describeService(step: ServiceStep): string[] {
  const at = `the ${step.what} at ${step.path}`;
  if (step.action === "created") return [`service: installed ${at}; enabled and started`];
  if (step.action === "rewritten") {
    return [
      `service: rewrote ${at}, which had drifted from what this binary writes:`,
      ...step.diff.map((line) => `  ${line}`),
      "  reloaded and restarted it",
    ];
  }
  return step.restarted
    ? [`service: ${at} is up to date; restarted it so the daemon reads the new config`]
    : [`service: ${at} is up to date and enabled`];
}
