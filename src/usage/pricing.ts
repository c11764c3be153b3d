import type { PricingSection } from "../config/sections/pricing.ts";
import type { Usage } from "../providers/types.ts";
import { BUILT_IN_PRICES, type Price } from "./prices.ts";

/** What one call costs and how it was billed: micro-dollars (null: no known price) and the price used. */
export type CallCost = { costMicros: number | null; billing: "api" | "plan"; price?: Price };

const FREE: Price = { inputPerMtok: 0, cachedInputPerMtok: 0, outputPerMtok: 0 };

/**
 * The price of `provider/model`: the config's entry for that exact id, else the built-in list's; Ollama is free
 * (the owner's own machine). Undefined when neither knows the model: its cost is then unknown, never a guess.
 */
export function priceOf(provider: string, model: string, overrides: PricingSection | undefined): Price | undefined {
  const key = `${provider}/${model}`;
  const configured = overrides?.[key];
  if (configured) {
    return {
      inputPerMtok: configured.input_per_mtok,
      cachedInputPerMtok: configured.cached_input_per_mtok ?? configured.input_per_mtok,
      outputPerMtok: configured.output_per_mtok,
    };
  }
  if (provider === "ollama") return FREE;
  return BUILT_IN_PRICES[key];
}

/**
 * One call's cost. A call on a subscription sign-in (a ChatGPT, Claude or Grok plan) is paid by the plan: its
 * tokens count, its cost is 0. Prompt tokens served from the cache are priced at the cached rate, the rest at the
 * input rate; reasoning is already inside the output count (providers/types.ts Usage).
 */
export function costOf(
  call: { provider: string; model: string; usage: Usage; plan: boolean },
  overrides: PricingSection | undefined,
): CallCost {
  if (call.plan) return { costMicros: 0, billing: "plan" };
  const price = priceOf(call.provider, call.model, overrides);
  if (!price) return { costMicros: null, billing: "api" };
  const cached = Math.min(call.usage.cachedInputTokens ?? 0, call.usage.inputTokens);
  // USD per million tokens × tokens = micro-dollars.
  const micros =
    (call.usage.inputTokens - cached) * price.inputPerMtok +
    cached * price.cachedInputPerMtok +
    call.usage.outputTokens * price.outputPerMtok;
  return { costMicros: Math.round(micros), billing: "api", price };
}
