import { describe, expect, test } from "bun:test";
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { createAuthStore } from "../../src/auth/auth-file.ts";
import { applyLoginToConfig, applyLogoutToConfig } from "../../src/auth/config-mode.ts";
import { browserLogin, claudeCodeImport, setupTokenLogin } from "../../src/auth/login.ts";
import { profileFor } from "../../src/auth/profiles.ts";
import { authCheck } from "../../src/doctor/auth-check.ts";
import type { DoctorContext } from "../../src/doctor/check.ts";
import { cleanupAfterEach } from "../fixture/cleanup.ts";
import { authFixture } from "./_helpers.ts";

const defer = cleanupAfterEach();

async function freePort(): Promise<number> {
  const server = Bun.serve({ hostname: "127.0.0.1", port: 0, fetch: () => new Response() });
  const port = server.port!;
  server.stop(true);
  return port;
}

describe("browser sign-in (loopback PKCE)", () => {
  for (const profile of ["openai_codex", "xai_oauth"] as const) {
    test(`${profile}: the fake verifies PKCE and the redirect; tokens land in auth.json`, async () => {
      const { paths, env, fake } = authFixture(defer);
      const store = createAuthStore(paths.auth);
      const port = await freePort();
      const urls: string[] = [];
      const result = await browserLogin({
        profile,
        store,
        env,
        port,
        printUrl: (url) => urls.push(url),
        openBrowser: (url) => void fake.approve(url),
      });
      expect(result.email).toBe("owner@example.com");
      const authorize = new URL(urls[0]!);
      const redirect = authorize.searchParams.get("redirect_uri")!;
      expect(redirect).toBe(
        profile === "openai_codex" ? `http://localhost:${port}/auth/callback` : `http://127.0.0.1:${port}/callback`,
      );
      expect(fake.tokenCalls).toEqual([
        { provider: profile === "openai_codex" ? "codex" : "xai", grant_type: "authorization_code", status: 200 },
      ]);
      const entry = store.read(profile)!;
      expect(entry).toMatchObject({ auth_mode: "oauth_pkce", status: "ready" });
      expect(fake.issued).toContain(entry.tokens.access_token);
      // The listener is closed: the port is free again.
      const again = Bun.serve({ hostname: "127.0.0.1", port, fetch: () => new Response() });
      again.stop(true);
    });
  }

  test("a redirect with the wrong state is refused and nothing is stored", async () => {
    const { paths, env } = authFixture(defer);
    const store = createAuthStore(paths.auth);
    const port = await freePort();
    const login = browserLogin({
      profile: "xai_oauth",
      store,
      env,
      port,
      printUrl: () => {},
      openBrowser: () => void fetch(`http://127.0.0.1:${port}/callback?code=x&state=forged`),
    });
    await expect(login).rejects.toThrow(/wrong state/);
    expect(store.read("xai_oauth")).toBeUndefined();
  });

  test("no redirect within --timeout: a timeout error, and the listener closed", async () => {
    const { paths, env } = authFixture(defer);
    const port = await freePort();
    const login = browserLogin({
      profile: "openai_codex",
      store: createAuthStore(paths.auth),
      env,
      port,
      timeoutMs: 50,
      printUrl: () => {},
    });
    await expect(login).rejects.toThrow(/within 1s.*--timeout/);
    Bun.serve({ hostname: "127.0.0.1", port, fetch: () => new Response() }).stop(true);
  });

  test("FERMIX_TEST_OAUTH_BASE_URL is honoured only for a loopback address", async () => {
    const login = browserLogin({
      profile: "openai_codex",
      store: createAuthStore("/nonexistent/auth.json"),
      env: { FERMIX_TEST_OAUTH_BASE_URL: "https://evil.example" },
      printUrl: () => {},
    });
    await expect(login).rejects.toThrow(/loopback/);
  });
});

describe("Claude sign-in", () => {
  test("a setup token is stored without expiry or refresh token", async () => {
    const { paths } = authFixture(defer);
    const store = createAuthStore(paths.auth);
    await setupTokenLogin(store, "sk-ant-oat01-abc\n");
    expect(store.read("anthropic_oauth")).toMatchObject({
      auth_mode: "setup_token",
      tokens: { access_token: "sk-ant-oat01-abc" },
    });
    expect(store.read("anthropic_oauth")?.expires_at).toBeUndefined();
  });

  test("--import-claude-code copies claudeAiOauth from $HOME/.claude/.credentials.json", async () => {
    const { paths, env, home } = authFixture(defer);
    mkdirSync(join(home.userHome, ".claude"), { recursive: true });
    const expiresAt = Date.now() + 3600_000;
    writeFileSync(
      join(home.userHome, ".claude", ".credentials.json"),
      JSON.stringify({ claudeAiOauth: { accessToken: "cc-a", refreshToken: "cc-r", expiresAt, scopes: [] } }),
    );
    const store = createAuthStore(paths.auth);
    await claudeCodeImport(store, env);
    expect(store.read("anthropic_oauth")).toMatchObject({
      auth_mode: "claude_code_import",
      tokens: { access_token: "cc-a", refresh_token: "cc-r" },
      expires_at: new Date(expiresAt).toISOString(),
    });
  });

  test("an expired Claude Code login without a refresh token is refused", async () => {
    const { paths, env, home } = authFixture(defer);
    mkdirSync(join(home.userHome, ".claude"), { recursive: true });
    writeFileSync(
      join(home.userHome, ".claude", ".credentials.json"),
      JSON.stringify({ claudeAiOauth: { accessToken: "cc-a", expiresAt: Date.now() + 30_000 } }),
    );
    await expect(claudeCodeImport(createAuthStore(paths.auth), env)).rejects.toThrow(/expired/);
  });

  test("no credentials file: a sentence naming it", async () => {
    const { paths, env } = authFixture(defer);
    await expect(claudeCodeImport(createAuthStore(paths.auth), env)).rejects.toThrow(
      /\.credentials\.json does not exist/,
    );
  });
});

describe("config auth_mode", () => {
  test("login sets oauth, logout reverts to api_key; comments are kept", () => {
    const { home } = authFixture(defer);
    const file = home.writeConfig(
      `# my config\n[fermix_core.providers.anthropic]\n# the key\napi_key = "$ANTHROPIC_API_KEY"\nprimary = true\n`,
    );
    expect(applyLoginToConfig(file, "anthropic_oauth").changed).toBe(true);
    let text = readFileSync(file, "utf8");
    expect(text).toContain("# my config");
    expect(text).toContain("# the key");
    expect(text).toContain('auth_mode = "oauth"');
    expect(text).toContain("primary = true");
    expect(applyLoginToConfig(file, "anthropic_oauth").changed).toBe(false);
    expect(applyLogoutToConfig(file, "anthropic_oauth").changed).toBe(true);
    text = readFileSync(file, "utf8");
    expect(text).toContain('auth_mode = "api_key"');
    expect(text).toContain("# the key");
  });

  test("codex login adds its block once and never a primary flag", () => {
    const { home } = authFixture(defer);
    const file = home.writeConfig(`[fermix_core.providers.openai]\napi_key = "$OPENAI_API_KEY"\nprimary = true\n`);
    expect(applyLoginToConfig(file, "openai_codex").changed).toBe(true);
    expect(applyLoginToConfig(file, "openai_codex").changed).toBe(false);
    const text = readFileSync(file, "utf8");
    expect(text.match(/\[fermix_core\.providers\.openai_codex\]/g)).toHaveLength(1);
    expect(text.match(/primary/g)).toHaveLength(1);
  });

  test("an unknown provider name says which ones there are", () => {
    expect(() => profileFor("gemini")).toThrow('unknown provider "gemini"; expected codex, anthropic, or xai');
  });
});

describe("doctor row", () => {
  const ctx = (paths: ReturnType<typeof authFixture>["paths"]) =>
    ({ paths, now: Date.now, display: (p: string) => p }) as unknown as DoctorContext;

  test("silent when nobody signed in; expiry when someone did; Reconnect needed after a refusal", async () => {
    const { paths, writeAuth } = authFixture(defer);
    expect(await authCheck.run(ctx(paths))).toEqual([]);
    writeAuth({
      version: 2,
      providers: {
        xai_oauth: {
          auth_mode: "oauth_pkce",
          tokens: { access_token: "a", refresh_token: "r" },
          expires_at: new Date(Date.now() + 7170_000).toISOString(),
        },
      },
    });
    const [ok] = await authCheck.run(ctx(paths));
    expect(ok).toMatchObject({ title: "auth tokens", status: "ok" });
    expect(ok!.detail).toMatch(/xai: logged in \(oauth_pkce\), token expires in 1 h 59 min/);
    await createAuthStore(paths.auth).update("xai_oauth", (e) => ({
      ...e!,
      status: "reauthorization_required",
      refused: "invalid_grant",
    }));
    const [warn] = await authCheck.run(ctx(paths));
    expect(warn).toMatchObject({ status: "warn", fix: "sign in again: fermix auth login --provider xai" });
    expect(warn!.detail).toContain("Reconnect needed");
  });

  test("a broken auth.json fails the row; a copy kept aside is mentioned", async () => {
    const { paths } = authFixture(defer);
    writeFileSync(paths.auth, "garbage", { mode: 0o600 });
    const [fail] = await authCheck.run(ctx(paths));
    expect(fail).toMatchObject({ status: "fail" });
    expect(fail!.detail).toContain("not valid JSON");
    await createAuthStore(paths.auth)
      .update("xai_oauth", () => undefined)
      .catch(() => {});
    const [warn] = await authCheck.run(ctx(paths));
    expect(warn).toMatchObject({ status: "warn" });
    expect(warn!.detail).toContain("auth.json.broken.");
  });
});
