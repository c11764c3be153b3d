import { EFFORTS, type Effort } from "../config/sections/providers.ts";
import type { ProviderDescriptor } from "./descriptors.ts";
import { grokRejectsEffort } from "./xai-quirks.ts";

/** Models whose own ceiling is below their provider's (max is a GPT-5.6-family capability). */
const MODEL_CEILINGS: Array<{ match: RegExp; ceiling: Effort }> = [
  { match: /^gpt-5\.[0-5](\b|-|$)/, ceiling: "xhigh" },
];

/**
 * Maps the canonical effort onto what this provider and model accept: clamped into the provider's
 * [floor, ceiling] and any model ceiling; providers without an effort knob, and Grok models that refuse one,
 * get nothing (so setup offers no levels for them and traces report none, matching what the wire sends).
 */
export function resolveEffort(
  provider: ProviderDescriptor,
  model: string,
  wanted: Effort | undefined,
): Effort | undefined {
  if (!wanted || !provider.effort) return undefined;
  if (provider.id === "xai" && grokRejectsEffort(model)) return undefined;
  const rank = (e: Effort) => EFFORTS.indexOf(e);
  let ceiling = rank(provider.effort.ceiling);
  for (const m of MODEL_CEILINGS) if (m.match.test(model)) ceiling = Math.min(ceiling, rank(m.ceiling));
  const clamped = Math.max(rank(provider.effort.floor), Math.min(ceiling, rank(wanted)));
  return EFFORTS[clamped];
}

/** The levels this provider's model accepts: the provider's [floor, ceiling] cut by the model's own ceiling. */
export function effortLevels(provider: ProviderDescriptor, model: string): Effort[] {
  return provider.effort ? EFFORTS.filter((e) => resolveEffort(provider, model, e) === e) : [];
}
