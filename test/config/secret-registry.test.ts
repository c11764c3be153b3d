import { describe, expect, test } from "bun:test";
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { createAuthStore } from "../../src/auth/auth-file.ts";
import { registeredSecrets, registerSecret } from "../../src/config/secret-registry.ts";
import { envSecret, resolveSecret } from "../../src/config/secrets.ts";
import { redact } from "../../src/observability/redact.ts";
import { createTokenStore } from "../../src/plugins/oauth/token-store.ts";
import { tempHome } from "../fixture/home.ts";

/** Not shaped like any vendor's key, so only the registry can know it is one. */
const seed = (label: string) => `${label}${crypto.randomUUID().replaceAll("-", "")}`;
const noKeyring = () => ({ ok: false, stdout: "" });

describe("the process's secret registry", () => {
  test("resolving a secret registers it: redact() removes it with no list handed in", () => {
    const plain = seed("plain");
    const fromEnv = seed("env");
    const deps = { env: { MY_TOKEN: fromEnv }, secretsDir: "/nonexistent", run: noKeyring };
    expect(resolveSecret(plain, "SOME_SLOT", deps)).toBe(plain);
    expect(resolveSecret({ source: "env", name: "MY_TOKEN" }, "OTHER_SLOT", deps)).toBe(fromEnv);
    expect(redact(`sent ${plain} then ${fromEnv}`)).toBe("sent [REDACTED:secret] then [REDACTED:secret]");
  });

  test("a secret read straight from the environment is registered; an unset or blank one is undefined", () => {
    const value = seed("exported");
    expect(envSecret({ KEY: value, BLANK: "  " }, "KEY")).toBe(value);
    expect(envSecret({ KEY: value, BLANK: "  " }, "BLANK")).toBeUndefined();
    expect(envSecret({}, "KEY")).toBeUndefined();
    expect(registeredSecrets()).toContain(value);
  });

  test("the forms a secret travels in: trimmed, URL-encoded, and a header value's credential alone", () => {
    const token = seed("bearer");
    registerSecret(`Bearer ${token}\n`);
    expect(redact(`the token ${token} is not valid`)).toBe("the token [REDACTED:secret] is not valid");
    const odd = `${seed("odd")}+/=`;
    registerSecret(odd);
    expect(redact(`GET /x?key=${encodeURIComponent(odd)}`)).toBe("GET /x?key=[REDACTED:secret]");
  });

  test("empty and short values are not registered (they would eat ordinary words)", () => {
    const before = registeredSecrets().length;
    for (const value of [undefined, null, "", "   ", "abc", "12345"]) registerSecret(value);
    expect(registeredSecrets().length).toBe(before);
  });

  test("a secret that contains another is replaced whole", () => {
    const inner = seed("inner");
    registerSecret(inner);
    registerSecret(`${inner}-outer`);
    expect(redact(`x ${inner}-outer y`)).toBe("x [REDACTED:secret] y");
  });

  test("auth.json's readers register every token they read: a sign-in profile's and a plugin's grant", async () => {
    await using h = tempHome();
    mkdirSync(h.home, { recursive: true, mode: 0o700 });
    const file = join(h.home, "auth.json");
    const tokens = { access: seed("acc"), refresh: seed("ref"), grant: seed("grant"), grantRefresh: seed("grf") };
    const profile = { auth_mode: "oauth_pkce", tokens: { access_token: tokens.access, refresh_token: tokens.refresh } };
    const grant = {
      provider: "google",
      access_token: tokens.grant,
      refresh_token: tokens.grantRefresh,
      scopes: [],
      obtained_at: new Date().toISOString(),
    };
    writeFileSync(file, JSON.stringify({ version: 2, providers: { openai_codex: profile }, plugins: { g: grant } }), {
      mode: 0o600,
    });
    expect(redact(Object.values(tokens).join(" "))).toBe(Object.values(tokens).join(" "));
    expect(createAuthStore(file).read("openai_codex")?.tokens.access_token).toBe(tokens.access);
    expect(createTokenStore(file).get("g")?.access_token).toBe(tokens.grant);
    expect(redact(Object.values(tokens).join(" "))).toBe(Array(4).fill("[REDACTED:secret]").join(" "));
  });
});
