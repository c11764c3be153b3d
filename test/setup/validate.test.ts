import { describe, expect, test } from "bun:test";
import { checkApiKey, checkName, checkProvider, checkTimezone } from "../../src/setup/validate.ts";

describe("setup's answer checks", () => {
  test("time zones are IANA names as Intl knows them, in canonical spelling; offsets and inventions are not", () => {
    expect(checkTimezone("America/New_York")).toEqual({ ok: true, value: "America/New_York" });
    expect(checkTimezone(" europe/paris ")).toEqual({ ok: true, value: "Europe/Paris" });
    expect(checkTimezone("UTC")).toEqual({ ok: true, value: "UTC" });
    for (const bad of ["Mars/Base", "+05:00", "", "New York"]) expect(checkTimezone(bad).ok).toBe(false);
  });

  test("providers by id (any case) or menu number", () => {
    expect(checkProvider("Anthropic")).toMatchObject({ ok: true, value: { id: "anthropic" } });
    expect(checkProvider("7")).toMatchObject({ ok: true, value: { id: "ollama" } });
    expect(checkProvider("gemini")).toEqual({
      ok: false,
      error: 'unknown provider "gemini" (known: openai_codex, openai, anthropic, xai, openrouter, mistral, ollama)',
    });
  });

  test("names are one line; keys have no inner whitespace and are never quoted back", () => {
    expect(checkName("  Jarvis ", "the name")).toEqual({ ok: true, value: "Jarvis" });
    expect(checkName("a\nb", "the name").ok).toBe(false);
    expect(checkName("x".repeat(65), "the name").ok).toBe(false);
    expect(checkApiKey(" sk-abc\n")).toEqual({ ok: true, value: "sk-abc" });
    const twoLines = checkApiKey("sk-one\nsk-two");
    expect(twoLines).toEqual({ ok: false, error: "the API key contains spaces or more than one line" });
  });
});
