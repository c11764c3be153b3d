import { describe, expect, test } from "bun:test";
import type { Config } from "../../src/config/schema.ts";
import { findProvider } from "../../src/providers/descriptors.ts";
import { effortLevels, resolveEffort } from "../../src/providers/effort.ts";
import { resolveRoutes } from "../../src/providers/routes.ts";

const secrets = (env: Record<string, string> = {}) => ({
  env,
  secretsDir: "/nonexistent",
  run: () => ({ ok: false, stdout: "" }),
});
const ids = (routes: { descriptor: { id: string } }[]) => routes.map((r) => r.descriptor.id);

describe("routes", () => {
  test("zero config: every provider with an env credential, catalog order, first is primary", () => {
    const env = { ANTHROPIC_API_KEY: "sk-ant-x", OPENAI_API_KEY: "sk-x", OLLAMA_BASE_URL: "http://127.0.0.1:9/" };
    const routes = resolveRoutes({}, env, secrets(env));
    expect(ids(routes)).toEqual(["openai", "anthropic", "ollama"]);
    expect(routes[0]!.target).toMatchObject({ apiKey: "sk-x", baseUrl: "https://api.openai.com/v1" });
    // Ollama is keyless and its server root gains the OpenAI-compatible /v1.
    expect(routes[2]!.target).toMatchObject({
      apiKey: undefined,
      baseUrl: "http://127.0.0.1:9/v1",
      receiveTimeoutMs: 300_000,
    });
  });

  test("env base URLs replace the defaults", () => {
    const env = {
      OPENAI_API_KEY: "k",
      OPENAI_BASE_URL: "http://127.0.0.1:1234/v1/",
      ANTHROPIC_API_KEY: "a",
      ANTHROPIC_BASE_URL: "http://127.0.0.1:9",
    };
    const [openai, anthropic] = resolveRoutes({}, env, secrets(env));
    expect(openai!.target.baseUrl).toBe("http://127.0.0.1:1234/v1");
    expect(anthropic!.target.baseUrl).toBe("http://127.0.0.1:9");
  });

  test("config blocks decide; the primary flag leads and the rest follow in catalog order", () => {
    const config: Config = {
      fermix_core: {
        providers: {
          mistral: { api_key: "m" },
          anthropic: { api_key: "a", primary: true, default_model: "claude-opus-4-6" },
          openai: { api_key: "o" },
        },
      },
    };
    const routes = resolveRoutes(config, { XAI_API_KEY: "ignored" }, secrets());
    expect(ids(routes)).toEqual(["anthropic", "openai", "mistral"]);
    expect(routes[0]!.model).toBe("claude-opus-4-6");
  });

  test("two primaries are an error naming both blocks", () => {
    const config: Config = {
      fermix_core: { providers: { openai: { api_key: "o", primary: true }, xai: { api_key: "x", primary: true } } },
    };
    expect(() => resolveRoutes(config, {}, secrets())).toThrow(
      "config.toml marks more than one provider primary ([fermix_core.providers.openai] and [fermix_core.providers.xai])",
    );
  });

  test("nothing configured says exactly how to configure a provider", () => {
    try {
      resolveRoutes({}, {}, secrets());
      throw new Error("unreachable");
    } catch (err: any) {
      expect(err.code).toBe("no_provider");
      expect(err.message).toContain("export OPENAI_API_KEY=");
      expect(err.message).toContain("[fermix_core.providers.openai]");
    }
  });

  test("a primary without a key names the variable and the config block", () => {
    const config: Config = { fermix_core: { providers: { openai: { primary: true } } } };
    expect(() => resolveRoutes(config, {}, secrets())).toThrow(
      "OpenAI has no API key: set OPENAI_API_KEY in the environment or api_key in [fermix_core.providers.openai]",
    );
  });

  test("a fallback without a key is skipped rather than blocking the primary", () => {
    const config: Config = { fermix_core: { providers: { openai: { primary: true, api_key: "o" }, anthropic: {} } } };
    expect(ids(resolveRoutes(config, {}, secrets()))).toEqual(["openai"]);
  });

  test("--provider and --model pick the first route", () => {
    const env = { OPENAI_API_KEY: "o", ANTHROPIC_API_KEY: "a" };
    const routes = resolveRoutes({}, env, secrets(env), { provider: "anthropic", model: "claude-haiku-4-5" });
    expect(ids(routes)).toEqual(["anthropic", "openai"]);
    expect(routes[0]!.model).toBe("claude-haiku-4-5");
    expect(() => resolveRoutes({}, env, secrets(env), { provider: "gemini" })).toThrow('unknown provider "gemini"');
    expect(() => resolveRoutes({}, env, secrets(env), { provider: "mistral" })).toThrow("Mistral is not configured");
  });

  test("OpenRouter carries its attribution headers", () => {
    const env = { OPENROUTER_API_KEY: "sk-or" };
    const [route] = resolveRoutes({}, env, secrets(env));
    expect(route!.target.headers).toEqual({ "HTTP-Referer": "https://fermix.sh", "X-Title": "Fermix" });
  });
});

describe("reasoning effort", () => {
  test("is clamped to each provider's range and model ceiling", () => {
    const openai = findProvider("openai")!;
    const anthropic = findProvider("anthropic")!;
    const xai = findProvider("xai")!;
    expect(resolveEffort(openai, "gpt-5.6", "max")).toBe("max");
    expect(resolveEffort(openai, "gpt-5.5", "max")).toBe("xhigh");
    expect(resolveEffort(openai, "gpt-5.4-mini", "max")).toBe("xhigh");
    expect(resolveEffort(anthropic, "claude-sonnet-4-6", "none")).toBe("low");
    expect(resolveEffort(xai, "grok-3-mini", "xhigh")).toBe("high");
    expect(resolveEffort(openai, "gpt-5.5", undefined)).toBeUndefined();
    for (const id of ["openrouter", "mistral", "ollama"])
      expect(resolveEffort(findProvider(id)!, "m", "high")).toBeUndefined();
  });

  test("a Grok model that refuses an effort resolves to none, so setup offers no levels and traces report none", () => {
    const xai = findProvider("xai")!;
    for (const model of ["grok-4", "grok-4-fast-reasoning", "grok-4-1-fast", "grok-code-fast-1"]) {
      expect(resolveEffort(xai, model, "high")).toBeUndefined();
      expect(effortLevels(xai, model)).toEqual([]);
    }
    expect(effortLevels(xai, "grok-3-mini")).toEqual(["none", "low", "medium", "high"]);
  });
});
