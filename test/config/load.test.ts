import { describe, expect, test } from "bun:test";
import { readdirSync } from "node:fs";
import { loadConfig, parseConfig } from "../../src/config/load.ts";
import { tempHome } from "../fixture/home.ts";

const FILE = "/home/u/.fermix/config.toml";

function errorOf(toml: string) {
  try {
    parseConfig(toml, FILE);
  } catch (err: any) {
    return err;
  }
  throw new Error("expected the config to be rejected");
}

describe("config.toml", () => {
  test("a missing file is an empty config and writes nothing", async () => {
    await using h = tempHome();
    expect(await loadConfig(`${h.home}/config.toml`)).toEqual({});
    expect(() => readdirSync(h.home)).toThrow();
  });

  test("a valid file with every provider block parses", () => {
    const config = parseConfig(
      `
      [fermix_core.providers.openai]
      primary = true
      api_key = "@keyring"
      reasoning_effort = "high"
      [fermix_core.providers.anthropic]
      api_key = { source = "env", name = "MY_CLAUDE_KEY" }
      [fermix_core.providers.ollama]
      base_url = "http://localhost:11434/v1"
      default_model = "qwen3"
      [sandbox]
      mode = "standard"
      `,
      FILE,
    );
    expect(config.fermix_core?.providers?.openai?.primary).toBe(true);
    expect(config.fermix_core?.providers?.ollama?.default_model).toBe("qwen3");
  });

  test("malformed TOML names the file, line and column", () => {
    const err = errorOf(`[fermix_core.providers.openai]\nprimary = tru`);
    expect(err.code).toBe("config_invalid");
    expect(err.message).toStartWith(`${FILE}: line 2, column`);
    expect(err.message).toContain("not valid TOML");
  });

  test("an unknown key names the section and the key", () => {
    const err = errorOf(`[fermix_core.providers.openai]\nmodle = "gpt-5.5"`);
    expect(err.message).toBe(
      `${FILE}: [fermix_core.providers.openai] unknown key "modle" (remove it, or check its spelling)`,
    );
    expect(err.data).toMatchObject({ section: "fermix_core.providers.openai", key: "modle" });
  });

  test("an unknown provider lists the known ones", () => {
    expect(errorOf(`[fermix_core.providers.gemini]\nprimary = true`).message).toContain(
      `[fermix_core.providers] unknown key "gemini" (known providers: openai_codex, openai, anthropic, xai, openrouter, mistral, ollama)`,
    );
  });

  test("a wrong type says what was expected and what was found", () => {
    expect(errorOf(`[fermix_core.providers.openai]\nprimary = "yes"`).message).toBe(
      `${FILE}: [fermix_core.providers.openai] primary: expected true or false, got "yes"`,
    );
    expect(errorOf(`[sandbox]\nallowed_roots = "/tmp"`).message).toContain(`[sandbox] allowed_roots: expected a list`);
    expect(errorOf(`[fermix_core.providers.openai]\nbase_url = "api.openai.com"`).message).toContain(
      "base_url: expected a URL such as https://api.example.com/v1",
    );
  });

  test("providers without an effort knob reject reasoning_effort", () => {
    for (const id of ["openrouter", "mistral", "ollama"]) {
      expect(errorOf(`[fermix_core.providers.${id}]\nreasoning_effort = "high"`).message).toContain(
        `(${id} has no reasoning-effort setting; remove the key)`,
      );
    }
  });

  test("an effort outside the vocabulary is rejected", () => {
    expect(errorOf(`[fermix_core.providers.openai]\nreasoning_effort = "extreme"`).message).toContain(
      "reasoning_effort: expected",
    );
  });

  test("a secret of the wrong shape is explained", () => {
    expect(errorOf(`[fermix_core.providers.openai]\napi_key = 42`).message).toContain(
      'api_key: expected a secret: a string ("sk-…", "@keyring" or "$ENV_VAR")',
    );
  });
});
