/**
 * Which provider a model id belongs to, as far as fermix can tell from its shape. Used to refuse a
 * provider/model mis-pairing (an Anthropic id under OpenRouter, an OpenAI id under Ollama) before any
 * call is made, rather than letting the provider answer with a puzzling 404.
 */
const OWNERS: Array<{ provider: string; match: RegExp }> = [
  { provider: "openrouter", match: /^[a-z0-9-]+\/[\w.:-]+$/i },
  { provider: "openai", match: /^(gpt-|o\d|chatgpt-|codex-)/i },
  { provider: "anthropic", match: /^claude-/i },
  { provider: "xai", match: /^grok-/i },
  { provider: "mistral", match: /^(mistral-|magistral-|codestral-|ministral-|pixtral-|devstral-)/i },
];

/** The provider a model id clearly belongs to, or undefined when its shape says nothing (local models). */
export function providerOfModel(model: string): string | undefined {
  return OWNERS.find((o) => o.match.test(model))?.provider;
}

/** Whether `model` can be asked of `provider`; Ollama serves whatever was pulled, but not hosted vendors' ids. */
export function isMisPaired(provider: string, model: string): boolean {
  const owner = providerOfModel(model);
  if (!owner) return provider === "openrouter"; // OpenRouter ids are always vendor/model
  // A ChatGPT plan serves OpenAI's own models through Codex.
  if (provider === "openai_codex") return owner !== "openai";
  return owner !== provider;
}
