import { describe, expect, test } from "bun:test";
import { findProvider } from "../../src/providers/descriptors.ts";
import type { Route } from "../../src/providers/routes.ts";
import { canSeeImages, visionRoutes } from "../../src/providers/vision.ts";

const route = (provider: string, model: string): Route => ({
  descriptor: findProvider(provider)!,
  model,
  target: { provider, baseUrl: "http://x", headers: {}, receiveTimeoutMs: 1 },
});

describe("which models read images", () => {
  test("the vision providers' default models see", () => {
    for (const id of ["openai", "anthropic", "xai", "openrouter", "mistral"]) {
      expect([id, canSeeImages(id, findProvider(id)!.defaultModel)]).toEqual([id, true]);
    }
  });

  test.each([
    ["openai", "gpt-4o", true],
    ["openai", "o3-mini", false],
    ["anthropic", "claude-haiku-4-5", true],
    ["xai", "grok-4-fast", true],
    ["xai", "grok-3-mini", false],
    ["xai", "grok-code-fast-1", false],
    ["openrouter", "google/gemini-2.5-pro", true],
    ["openrouter", "deepseek/deepseek-chat", false],
    ["mistral", "pixtral-large-latest", true],
    ["mistral", "codestral-latest", false],
    ["ollama", "llama3.2", false],
    ["ollama", "qwen2.5vl:7b", true],
    ["ollama", "gemma3:1b", false],
    ["ollama", "gemma3:12b", true],
    ["nobody", "anything", false],
  ])("%s %s → %p", (provider, model, sees) => {
    expect(canSeeImages(provider, model)).toBe(sees);
  });
});

describe("routes for a turn with pictures", () => {
  test("a blind primary is an error that says what to do", () => {
    expect(() => visionRoutes([route("mistral", "codestral-latest"), route("openai", "gpt-5.5")])).toThrow(
      "the model codestral-latest (Mistral) cannot read images; set default_model in [fermix_core.providers.mistral] to a vision model such as mistral-medium-latest, make a vision-capable provider primary, or describe the picture in text",
    );
  });

  test("blind fallbacks are dropped, seeing ones kept in order", () => {
    const kept = visionRoutes([
      route("openai", "gpt-5.5"),
      route("ollama", "llama3.2"),
      route("anthropic", "claude-sonnet-4-6"),
    ]);
    expect(kept.map((r) => r.descriptor.id)).toEqual(["openai", "anthropic"]);
  });
});
