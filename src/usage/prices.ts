/**
 * The built-in price list: USD per million tokens for each provider's default model and the models people commonly
 * pin, as the vendors list them for standard (non-batch, short-context) API use. Dated 2026-11-30; sources: the
 * vendors' own pricing pages — openai.com/api/pricing, anthropic.com/pricing (API), docs.x.ai/docs/models,
 * mistral.ai/pricing — and openrouter.ai/models for OpenRouter's pass-through ids. Prices change: a config entry
 * `[fermix_core.pricing."<provider>/<model>"]` overrides any row, and a model not listed here has no price (its
 * tokens are counted, its cost shown as unknown), never a guess from a similar name.
 *
 * `cachedInput` is the price of prompt tokens served from the vendor's cache (OpenAI cached input, Anthropic cache
 * reads, xAI cached prompt tokens). Reasoning tokens are billed as output everywhere, and the wires count them in
 * the output already. Ollama is not listed: a local model costs nothing (pricing.ts).
 */
export type Price = { inputPerMtok: number; cachedInputPerMtok: number; outputPerMtok: number };

export const PRICES_AS_OF = "2026-11-30";

const p = (inputPerMtok: number, cachedInputPerMtok: number, outputPerMtok: number): Price => ({
  inputPerMtok,
  cachedInputPerMtok,
  outputPerMtok,
});

/** Keyed "<provider>/<model>" with the exact model id the provider is asked for. */
export const BUILT_IN_PRICES: Readonly<Record<string, Price>> = {
  "openai/gpt-5.5": p(5, 0.5, 30),
  "openai/gpt-5.5-pro": p(30, 30, 180),
  "openai/gpt-5.4": p(2.5, 0.25, 15),
  "openai/gpt-5.4-mini": p(0.75, 0.075, 4.5),
  "openai/gpt-5.4-nano": p(0.2, 0.02, 1.25),
  "openai/gpt-5": p(1.25, 0.125, 10),
  "openai/gpt-5-mini": p(0.25, 0.025, 2),
  "openai/gpt-5-nano": p(0.05, 0.005, 0.4),
  "openai/gpt-4.1": p(2, 0.5, 8),
  "openai/gpt-4.1-mini": p(0.4, 0.1, 1.6),
  "openai/gpt-4o": p(2.5, 1.25, 10),
  "openai/gpt-4o-mini": p(0.15, 0.075, 0.6),
  "anthropic/claude-sonnet-4-6": p(3, 0.3, 15),
  "anthropic/claude-sonnet-4-5": p(3, 0.3, 15),
  "anthropic/claude-sonnet-4-0": p(3, 0.3, 15),
  "anthropic/claude-opus-4-5": p(5, 0.5, 25),
  "anthropic/claude-opus-4-1": p(15, 1.5, 75),
  "anthropic/claude-haiku-4-5": p(1, 0.1, 5),
  "xai/grok-4": p(3, 0.75, 15),
  "xai/grok-4-fast": p(0.2, 0.05, 0.5),
  "xai/grok-4-1-fast": p(0.2, 0.05, 0.5),
  "xai/grok-code-fast-1": p(0.2, 0.02, 1.5),
  "xai/grok-3-mini": p(0.3, 0.075, 0.5),
  "openrouter/anthropic/claude-sonnet-4.6": p(3, 0.3, 15),
  "openrouter/anthropic/claude-sonnet-4.5": p(3, 0.3, 15),
  "openrouter/openai/gpt-5.5": p(5, 0.5, 30),
  "mistral/mistral-large-latest": p(0.5, 0.5, 1.5),
  "mistral/mistral-medium-latest": p(0.4, 0.4, 2),
  "mistral/mistral-small-latest": p(0.1, 0.1, 0.3),
};
