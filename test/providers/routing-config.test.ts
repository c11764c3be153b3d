import { describe, expect, test } from "bun:test";
import { parseConfig } from "../../src/config/load.ts";
import { isMisPaired } from "../../src/providers/model-catalog.ts";
import { cronRoutes, subagentRoutes, validateRouting } from "../../src/providers/routing-config.ts";

const FILE = "/h/config.toml";
const secrets = (env: Record<string, string>) => ({ env, secretsDir: "/none", run: () => ({ ok: false, stdout: "" }) });

function check(toml: string) {
  validateRouting(parseConfig(toml, FILE), FILE);
}

describe("[fermix_core.routing]", () => {
  test("a model that belongs to another provider is refused at load, naming the key", () => {
    expect(() =>
      check(
        '[fermix_core.providers.openrouter]\napi_key = "k"\n[fermix_core.routing]\nsubagent_provider = "openrouter"\nsubagent_model = "claude-haiku-4-5"',
      ),
    ).toThrow('[fermix_core.routing] subagent_model: "claude-haiku-4-5" is not a openrouter model');
    expect(() =>
      check('[fermix_core.providers.anthropic]\napi_key = "k"\n[fermix_core.routing]\nsubagent_model = "gpt-5.4-mini"'),
    ).toThrow("subagent_model");
    expect(() => check('[fermix_core.routing]\ncron_provider = "gemini"')).toThrow(
      'cron_provider: unknown provider "gemini"',
    );
  });

  test("well-paired routing passes, and subagents get their own model", () => {
    const toml =
      '[fermix_core.providers.anthropic]\napi_key = "k"\nprimary = true\n[fermix_core.providers.openai]\napi_key = "o"\n[fermix_core.routing]\nsubagent_model = "claude-haiku-4-5"\nsubagent_reasoning_effort = "none"';
    check(toml);
    const [first, ...rest] = subagentRoutes(parseConfig(toml, FILE), {}, secrets({}));
    expect(first).toMatchObject({ model: "claude-haiku-4-5", effort: "low", descriptor: { id: "anthropic" } });
    expect(rest.map((r) => r.descriptor.id)).toEqual(["openai"]);
  });

  test("unpinned scheduled runs take cron_* routing; without it, the chain as configured", () => {
    const toml =
      '[fermix_core.providers.anthropic]\napi_key = "k"\nprimary = true\n[fermix_core.providers.openai]\napi_key = "o"\n[fermix_core.routing]\ncron_provider = "openai"\ncron_model = "gpt-5.4-mini"\ncron_reasoning_effort = "low"';
    check(toml);
    const [first, ...rest] = cronRoutes(parseConfig(toml, FILE), {}, secrets({}));
    expect(first).toMatchObject({ model: "gpt-5.4-mini", effort: "low", descriptor: { id: "openai" } });
    expect(rest.map((r) => r.descriptor.id)).toEqual(["anthropic"]);
    const plain =
      '[fermix_core.providers.anthropic]\napi_key = "k"\nprimary = true\n[fermix_core.providers.openai]\napi_key = "o"';
    expect(cronRoutes(parseConfig(plain, FILE), {}, secrets({})).map((r) => r.descriptor.id)).toEqual([
      "anthropic",
      "openai",
    ]);
  });

  test("model shapes", () => {
    expect(isMisPaired("openrouter", "anthropic/claude-sonnet-4.6")).toBe(false);
    expect(isMisPaired("openrouter", "gpt-5.5")).toBe(true);
    expect(isMisPaired("ollama", "llama3.2")).toBe(false);
    expect(isMisPaired("ollama", "claude-sonnet-4-6")).toBe(true);
    expect(isMisPaired("mistral", "mistral-small-latest")).toBe(false);
  });
});
