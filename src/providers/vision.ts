import { defineError } from "../error.ts";
import type { Route } from "./routes.ts";

export const NoVision = defineError<{ provider: string; model: string }>("provider_no_vision");

/**
 * Which models can read images, per provider. There is no per-model catalog data beyond id shapes
 * (model-catalog.ts), so this is a table of id patterns: a provider is either vision-capable for every model
 * but a few text-only ones, or (OpenRouter, Mistral, Ollama) model-dependent — and an unknown model of a
 * model-dependent provider counts as text-only, so a picture is refused loudly rather than silently ignored.
 */
const VISION: Record<string, { sees: RegExp; blind?: RegExp; example: string }> = {
  // GPT-4o, 4.1 and 5.x read images; the old text-only families and the mini reasoning models do not.
  openai: {
    sees: /./,
    blind: /^(gpt-3\.5|gpt-4-(0314|0613|32k)|o1-mini|o1-preview|o3-mini|codex-mini)/i,
    example: "gpt-5.5",
  },
  // A ChatGPT plan serves the same GPT-5.x models through Codex.
  openai_codex: { sees: /./, blind: /^codex-mini/i, example: "gpt-5.5" },
  anthropic: { sees: /^claude-/i, blind: /^claude-(instant|2)/i, example: "claude-sonnet-4-6" },
  // Grok 4 and the -vision models see; Grok 3 and grok-code are text-only.
  xai: { sees: /^grok-(4|[5-9])|vision/i, blind: /^grok-code/i, example: "grok-4" },
  openrouter: {
    sees: /^(anthropic\/claude-|openai\/(gpt-4o|gpt-4\.1|gpt-5|o3|o4)|google\/gemini|x-ai\/grok-4|meta-llama\/llama-(4|3\.2-\d+b-vision)|qwen\/qwen[\d.]*-vl|mistralai\/(pixtral|mistral-(medium|small-3\.[12])))/i,
    example: "anthropic/claude-sonnet-4.6",
  },
  mistral: {
    sees: /^(pixtral-|mistral-(medium|small)-|mistral-large-(latest|25\d\d)|magistral-(medium|small)-(latest|25\d\d))/i,
    example: "mistral-medium-latest",
  },
  // Ollama serves whatever was pulled: only the known multimodal families see.
  ollama: {
    sees: /^(llava|bakllava|llama3\.2-vision|llama4|gemma3(?!:(270m|1b))|qwen2\.5vl|qwen3-vl|minicpm-v|moondream|granite3\.2-vision|mistral-small3\.[12])/i,
    example: "qwen2.5vl",
  },
};

/** Whether `model` on `provider` accepts image content. */
export function canSeeImages(provider: string, model: string): boolean {
  const entry = VISION[provider];
  if (!entry) return false;
  return entry.sees.test(model) && !entry.blind?.test(model);
}

/**
 * The routes that may carry a turn with pictures. The first route is the owner's choice: if it cannot see,
 * the turn fails with what to do instead of dropping the pictures. A text-only fallback is skipped, for the
 * same reason.
 */
export function visionRoutes(routes: readonly Route[]): Route[] {
  const first = routes[0];
  if (first && !canSeeImages(first.descriptor.id, first.model)) {
    const d = first.descriptor;
    const example = VISION[d.id]?.example;
    throw NoVision(
      `the model ${first.model} (${d.label}) cannot read images; set default_model in [fermix_core.providers.${d.id}] to a vision model${example ? ` such as ${example}` : ""}, make a vision-capable provider primary, or describe the picture in text`,
      { provider: d.id, model: first.model },
    );
  }
  return routes.filter((r) => canSeeImages(r.descriptor.id, r.model));
}
