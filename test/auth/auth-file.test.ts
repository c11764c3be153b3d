import { describe, expect, test } from "bun:test";
import { existsSync, readdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { AuthFileBroken, brokenCopies, createAuthStore } from "../../src/auth/auth-file.ts";
import { createTokenStore } from "../../src/plugins/oauth/token-store.ts";
import { cleanupAfterEach } from "../fixture/cleanup.ts";
import { authFixture, inSeconds } from "./_helpers.ts";

const defer = cleanupAfterEach();

const entry = (access: string) => ({
  auth_mode: "oauth_pkce",
  tokens: { access_token: access, refresh_token: "r" },
  expires_at: inSeconds(3600),
  status: "ready" as const,
});

describe("auth.json v2", () => {
  test("writes are 0600, version 2, and leave no temp files behind", async () => {
    const { paths } = authFixture(defer);
    const store = createAuthStore(paths.auth);
    await store.update("xai_oauth", () => entry("a1"));
    expect(statSync(paths.auth).mode & 0o777).toBe(0o600);
    const file = JSON.parse(readFileSync(paths.auth, "utf8"));
    expect(file.version).toBe(2);
    expect(file.providers.xai_oauth.tokens.access_token).toBe("a1");
    expect(readdirSync(paths.home).filter((f) => f.endsWith(".tmp") || f.endsWith(".lock"))).toEqual([]);
  });

  test("plugin grants and provider profiles share the file without losing each other", async () => {
    const { paths } = authFixture(defer);
    const plugins = createTokenStore(paths.auth);
    const token = {
      provider: "github",
      access_token: "gh-token",
      scopes: ["repo"],
      obtained_at: new Date().toISOString(),
    };
    await plugins.put("github", token);
    const store = createAuthStore(paths.auth);
    await store.update("anthropic_oauth", () => entry("claude-1"));
    expect(plugins.get("github")?.access_token).toBe("gh-token");
    await plugins.put("slack", { ...token, provider: "slack", access_token: "sl" });
    expect(store.read("anthropic_oauth")?.tokens.access_token).toBe("claude-1");
    const file = JSON.parse(readFileSync(paths.auth, "utf8"));
    expect(file.version).toBe(2);
    expect(Object.keys(file.plugins).sort()).toEqual(["github", "slack"]);
  });

  test("a legacy flat file reads as openai_codex and is rewritten as version 2", async () => {
    const { paths, writeAuth } = authFixture(defer);
    writeAuth({ tokens: { access_token: "old-a", refresh_token: "old-r", account_id: "acct-9" }, last_refresh: "x" });
    const store = createAuthStore(paths.auth);
    expect(store.read("openai_codex")).toMatchObject({ tokens: { access_token: "old-a" }, account: { id: "acct-9" } });
    await store.update("xai_oauth", () => entry("g"));
    const file = JSON.parse(readFileSync(paths.auth, "utf8"));
    expect(file.tokens).toBeUndefined();
    expect(file.providers.openai_codex.tokens.refresh_token).toBe("old-r");
  });

  test("a file that does not parse is refused on read, moved aside on write, never overwritten", async () => {
    const { paths } = authFixture(defer);
    writeFileSync(paths.auth, "{ not json", { mode: 0o600 });
    const store = createAuthStore(paths.auth, { now: () => 1_700_000_000_000 });
    expect(() => store.read("openai_codex")).toThrow(/not valid JSON/);
    expect(readFileSync(paths.auth, "utf8")).toBe("{ not json");

    const err = await store.update("xai_oauth", () => entry("g")).catch((e) => e);
    expect(AuthFileBroken.is(err)).toBe(true);
    expect(err.message).toContain("auth.json.broken.1700000000");
    expect(existsSync(paths.auth)).toBe(false);
    expect(readFileSync(join(paths.home, "auth.json.broken.1700000000"), "utf8")).toBe("{ not json");
    expect(brokenCopies(paths.auth)).toHaveLength(1);

    // The next write starts a fresh file; the kept copy stays.
    await store.update("xai_oauth", () => entry("g"));
    expect(store.read("xai_oauth")?.tokens.access_token).toBe("g");
    expect(brokenCopies(paths.auth)).toHaveLength(1);
  });

  test("a version this build does not know is kept aside too", async () => {
    const { paths, writeAuth } = authFixture(defer);
    writeAuth({ version: 3, providers: {} });
    const store = createAuthStore(paths.auth);
    expect(() => store.read("xai_oauth")).toThrow(/version 3/);
    await expect(store.update("xai_oauth", () => entry("g"))).rejects.toThrow(/moved aside/);
  });

  test("two processes writing at once leave a valid file holding both", async () => {
    const { paths } = authFixture(defer);
    const script = (kind: "plugin" | "provider") => `
      const { createAuthStore } = await import(${JSON.stringify(join(import.meta.dir, "../../src/auth/auth-file.ts"))});
      const { createTokenStore } = await import(${JSON.stringify(join(import.meta.dir, "../../src/plugins/oauth/token-store.ts"))});
      const file = ${JSON.stringify(paths.auth)};
      for (let i = 0; i < 25; i++) {
        if (${JSON.stringify(kind)} === "plugin") {
          await createTokenStore(file).put("p" + i, { provider: "github", access_token: "t" + i, scopes: [], obtained_at: "x" });
        } else {
          await createAuthStore(file).update(["openai_codex", "anthropic_oauth", "xai_oauth"][i % 3], () => ({
            auth_mode: "oauth_pkce", tokens: { access_token: "a" + i }, status: "ready",
          }));
        }
      }`;
    const run = (kind: "plugin" | "provider") =>
      Bun.spawn([process.execPath, "-e", script(kind)], { stdout: "ignore", stderr: "pipe" });
    const procs = [run("plugin"), run("provider")];
    const codes = await Promise.all(procs.map((p) => p.exited));
    expect(codes).toEqual([0, 0]);
    const file = JSON.parse(readFileSync(paths.auth, "utf8"));
    expect(Object.keys(file.plugins)).toHaveLength(25);
    expect(file.providers.openai_codex.tokens.access_token).toBe("a24");
    expect(file.providers.anthropic_oauth.tokens.access_token).toBe("a22");
    expect(file.providers.xai_oauth.tokens.access_token).toBe("a23");
  });
});
