import { editConfigText } from "../config/sandbox-edit.ts";
import type { Config } from "../config/schema.ts";
import type { Effort } from "../config/sections/providers.ts";
import { isFermixError } from "../error.ts";
import { findProvider } from "../providers/descriptors.ts";
import { effortLevels } from "../providers/effort.ts";
import { validateRouting } from "../providers/routing-config.ts";
import { putRoutingKey } from "../providers/routing-edit.ts";

const TABLE = "fermix_core.routing";

/** What the Sub-agents fieldset posts: an empty field means "inherit the main agent's" (the key is removed). */
export type SubagentChoice = { model?: string; effort?: Effort };

/**
 * The provider sub-agents run on: [fermix_core.routing] subagent_provider when the owner set one by hand, else the
 * primary (a model without a provider runs on the primary).
 */
export function subagentProvider(config: Config, primary: string | undefined): string | undefined {
  return config.fermix_core?.routing?.subagent_provider ?? primary;
}

/** The efforts a sub-agent on `provider` running `model` can be given (none for a provider without the knob). */
export function subagentEffortLevels(provider: string | undefined, model: string): Effort[] {
  const d = provider ? findProvider(provider) : undefined;
  return d ? effortLevels(d, model) : [];
}

/**
 * Writes [fermix_core.routing] subagent_model / subagent_reasoning_effort in place (comments kept), refusing
 * before any write what the daemon would refuse at load: a model another provider serves (a mis-pairing,
 * checked on the merged routing as routing-config.ts does) or an effort the model does not take.
 */
export function saveSubagentRouting(
  file: string,
  config: Config,
  primary: string | undefined,
  mainModel: string,
  choice: SubagentChoice,
): { ok: true } | { ok: false; error: string } {
  const routing = { ...config.fermix_core?.routing };
  if (choice.model) routing.subagent_model = choice.model;
  else delete routing.subagent_model;
  if (choice.effort) routing.subagent_reasoning_effort = choice.effort;
  else delete routing.subagent_reasoning_effort;
  const merged: Config = { ...config, fermix_core: { ...config.fermix_core, routing } };
  try {
    validateRouting(merged, file);
  } catch (err) {
    if (isFermixError(err)) return { ok: false, error: err.message.replace(`${file}: `, "") };
    throw err;
  }
  const provider = subagentProvider(config, primary);
  if (choice.effort) {
    const levels = subagentEffortLevels(provider, choice.model ?? mainModel);
    if (!levels.includes(choice.effort)) {
      return {
        ok: false,
        error: levels.length
          ? `${choice.model ?? mainModel} does not accept reasoning effort "${choice.effort}" (it takes ${levels.join(", ")})`
          : `${provider ?? "this provider"} takes no reasoning effort; leave the sub-agents' effort empty`,
      };
    }
  }
  try {
    editConfigText(
      file,
      TABLE,
      (text) => {
        let out = putRoutingKey(text, "subagent_model", choice.model, file);
        out = putRoutingKey(out, "subagent_reasoning_effort", choice.effort, file);
        return out === text ? null : out;
      },
      (c) =>
        c.fermix_core?.routing?.subagent_model === choice.model &&
        c.fermix_core?.routing?.subagent_reasoning_effort === choice.effort,
    );
  } catch (err) {
    if (isFermixError(err)) return { ok: false, error: err.message };
    throw err;
  }
  return { ok: true };
}
