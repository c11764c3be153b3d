import { reconcileAgentName } from "../agent/prompt-files.ts";
import type { Env } from "../config/env.ts";
import { loadConfig } from "../config/load.ts";
import type { FermixPaths } from "../config/paths.ts";
import { editConfigText } from "../config/sandbox-edit.ts";
import type { Config } from "../config/schema.ts";
import type { Effort } from "../config/sections/providers.ts";
import { isFermixError } from "../error.ts";
import type { SetupFlags } from "../setup/answers.ts";
import { setKey } from "../setup/config-edit.ts";
import type { SetupIo } from "../setup/prompt.ts";

/** What the provider form posts, checked by the page: an empty `apiKey` keeps the configured one. */
export type ProviderForm = { provider: string; model: string; baseUrl?: string; apiKey?: string; effort?: Effort };

export type Personalization = { userName?: string; timezone: string; communicationStyle?: string; agentName: string };

export type ActionResult = { ok: true } | { ok: false; error: string };

/** The web pages' writes, each through `fermix setup`'s own code: the same probe, secret store and in-place config edit. */
export type SetupActions = {
  configFile: string;
  config(): Promise<Config>;
  configureProvider(form: ProviderForm): Promise<ActionResult>;
  setPrimary(provider: string): Promise<ActionResult>;
  savePersonalization(p: Personalization): Promise<ActionResult>;
};

// The key reaches runSetup as --api-key-env names it: through an env copy that lives for this one call.
const KEY_VAR = "FERMIX_WEB_API_KEY";

/** A quiet, non-interactive setup io: the summary lines are for a terminal, not the browser. */
const silentIo: SetupIo = {
  input: (async function* () {})(),
  write: async () => {},
  isTTY: false,
};

export function createSetupActions(deps: { env: Env; paths: FermixPaths }): SetupActions {
  const { env, paths } = deps;
  const file = paths.config;

  async function setup(flags: SetupFlags, extraEnv: Env = {}): Promise<ActionResult> {
    const { runSetup } = await import("../setup/run-setup.ts");
    try {
      await runSetup(
        { ...flags, service: false, nonInteractive: true },
        {
          env: { ...env, ...extraEnv },
          paths,
          io: silentIo,
          service: { binary: () => process.execPath },
        },
      );
      return { ok: true };
    } catch (err) {
      // Setup's errors never carry the key (run-setup.ts); a usage error or a failed probe is the page's error.
      if (isFermixError(err) || err instanceof Error) return { ok: false, error: err.message };
      throw err;
    }
  }

  return {
    configFile: file,
    config: () => loadConfig(file),
    configureProvider: (form) =>
      setup(
        {
          provider: form.provider,
          model: form.model,
          baseUrl: form.baseUrl,
          effort: form.effort,
          apiKeyEnv: form.apiKey ? KEY_VAR : undefined,
        },
        form.apiKey ? { [KEY_VAR]: form.apiKey } : {},
      ),
    // No key, no model: setup keeps what config.toml gives the provider and only moves the primary flag.
    setPrimary: (provider) => setup({ provider, skipTest: true }),
    async savePersonalization(p) {
      const table = "fermix_core.personalization";
      try {
        editConfigText(
          file,
          "fermix_core",
          (text) => {
            let out = setKey(text, "fermix_core.agent", "name", p.agentName, file);
            out = setKey(out, table, "timezone", p.timezone, file);
            if (p.userName !== undefined) out = setKey(out, table, "user_name", p.userName, file);
            if (p.communicationStyle !== undefined)
              out = setKey(out, table, "communication_style", p.communicationStyle, file);
            return out === text ? null : out;
          },
          (c) => {
            const core = c.fermix_core;
            const pz = core?.personalization;
            return (
              core?.agent?.name === p.agentName &&
              pz?.timezone === p.timezone &&
              (p.userName === undefined || pz?.user_name === p.userName) &&
              (p.communicationStyle === undefined || pz?.communication_style === p.communicationStyle)
            );
          },
        );
      } catch (err) {
        if (isFermixError(err)) return { ok: false, error: err.message };
        throw err;
      }
      reconcileAgentName(paths, p.agentName);
      return { ok: true };
    },
  };
}
