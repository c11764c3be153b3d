import { describe, expect, test } from "bun:test";
import { redact } from "../../src/observability/redact.ts";

describe("redact", () => {
  test.each([
    ["sk-proj-abcdefghijklmnopqrstuvwx", "openai"],
    ["sk-ant-api03-abcdefghijklmnop", "anthropic"],
    ["sk-or-v1-0123456789abcdef0123", "openrouter"],
    ["xai-abcdefghijklmnopqrstuvwxyz", "xai"],
    ["ghp_abcdefghijklmnopqrstuvwxyz0123", "github"],
    ["xoxb-1234567890-abcdefghij", "slack"],
    ["AKIAABCDEFGHIJKLMNOP", "aws"],
    ["123456789:AAH_abcdefghijklmnopqrstuvwxyz012345", "telegram"],
    ["MTIzNDU2Nzg5MDEyMzQ1Njc4.GfakeT.fake_discord_bot_token_for_tests_only", "discord"],
  ])("%s is replaced by a %s marker", (secret, vendor) => {
    const out = redact(`before ${secret} after`);
    expect(out).not.toContain(secret);
    expect(out).toContain(`[REDACTED:${vendor}]`);
  });

  test("bearer headers and key assignments keep their label", () => {
    expect(redact("Authorization: Bearer abc.def.ghi-jkl-mno")).toBe("Authorization: Bearer [REDACTED:bearer]");
    expect(redact('api_key = "k3y-that-is-long"')).toBe('api_key = "[REDACTED:key]"');
  });

  test("the case-insensitive patterns match in any case (a pattern is skipped only when its literal is absent)", () => {
    expect(redact("AUTHORIZATION: BEARER abc.def.ghi-jkl-mno")).toBe("AUTHORIZATION: BEARER [REDACTED:bearer]");
    expect(redact('X-Api-Key: "k3y-that-is-long"')).toBe('X-Api-Key: "[REDACTED:key]"');
    expect(redact("ApiKey=k3y-that-is-long")).toBe("ApiKey=[REDACTED:key]");
  });

  test("a line with no credential-shaped text comes back as it was", () => {
    const line = JSON.stringify({
      ts: "2026-12-02T08:28:43.015Z",
      type: "llm_call",
      provider: "openai",
      model: "gpt-5",
    });
    expect(redact(line)).toBe(line);
  });

  test("references to secrets are not secrets", () => {
    expect(redact('api_key = "@keyring"')).toBe('api_key = "@keyring"');
    expect(redact('api_key = "$OPENAI_API_KEY"')).toBe('api_key = "$OPENAI_API_KEY"');
  });

  test("known secret values are removed whatever their shape", () => {
    expect(redact("the key was hunter2-custom", ["hunter2-custom"])).toBe("the key was [REDACTED:secret]");
  });
});
