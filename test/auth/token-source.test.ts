import { describe, expect, test } from "bun:test";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { AuthBusy, BUSY_SENTENCE, createAuthStore, profileLockPath } from "../../src/auth/auth-file.ts";
import { profileStates } from "../../src/auth/status.ts";
import {
  AuthNotLoggedIn,
  AuthReconnectNeeded,
  createProfileTokenSource,
  REFRESH_EARLY_MS,
} from "../../src/auth/token-source.ts";
import { cleanupAfterEach } from "../fixture/cleanup.ts";
import { authFixture, inSeconds } from "./_helpers.ts";

const defer = cleanupAfterEach();

function setup(expiresInSeconds = 3600, profile: "openai_codex" | "anthropic_oauth" | "xai_oauth" = "openai_codex") {
  const fx = authFixture(defer);
  const provider = profile === "openai_codex" ? "codex" : profile === "anthropic_oauth" ? "anthropic" : "xai";
  const refresh = fx.fake.seedRefreshToken(provider);
  fx.writeAuth({
    version: 2,
    providers: {
      [profile]: {
        auth_mode: "oauth_pkce",
        tokens: { access_token: "stored-access", refresh_token: refresh },
        expires_at: inSeconds(expiresInSeconds),
        status: "ready",
      },
    },
  });
  const source = createProfileTokenSource({ paths: fx.paths, env: fx.env }, profile);
  const refreshes = () => fx.fake.tokenCalls.filter((c) => c.grant_type === "refresh_token");
  return { ...fx, source, refreshes, store: createAuthStore(fx.paths.auth) };
}

describe("profile token source", () => {
  test("a token valid for more than 90 s is used as stored", async () => {
    const { source, refreshes } = setup(REFRESH_EARLY_MS / 1000 + 60);
    expect((await source.token()).accessToken).toBe("stored-access");
    expect(refreshes()).toHaveLength(0);
  });

  test("a token within 90 s of expiry is refreshed first, and the new one stored", async () => {
    const { source, refreshes, store, fake } = setup(60);
    const token = await source.token();
    expect(token.accessToken).not.toBe("stored-access");
    expect(fake.issued).toContain(token.accessToken);
    expect(token.accountId).toBe("acct-fake-123");
    expect(token.expiresAt! - Date.now()).toBeGreaterThan(3000_000);
    expect(refreshes()).toEqual([{ provider: "codex", grant_type: "refresh_token", status: 200 }]);
    const stored = store.read("openai_codex")!;
    expect(stored.tokens.access_token).toBe(token.accessToken);
    expect(stored.account?.email).toBe("owner@example.com");
    // The rotated refresh token replaced the spent one.
    expect(fake.issued).toContain(stored.tokens.refresh_token!);
    expect((await source.token()).accessToken).toBe(token.accessToken);
    expect(refreshes()).toHaveLength(1);
  });

  test("xAI's expiry comes from the token's exp claim when expires_in is absent", async () => {
    const { source } = setup(10, "xai_oauth");
    const token = await source.token();
    expect(Math.abs(token.expiresAt! - (Date.now() + 3600_000))).toBeLessThan(5000);
  });

  test("Claude refreshes against its JSON token endpoint", async () => {
    const { source, refreshes } = setup(10, "anthropic_oauth");
    expect((await source.token()).accessToken).toStartWith("sk-ant-oat01-fake-");
    expect(refreshes()).toEqual([{ provider: "anthropic", grant_type: "refresh_token", status: 200 }]);
  });

  test("refreshAfterUnauthorized: a token other than the refused one is returned as is", async () => {
    const { source, refreshes } = setup();
    expect((await source.refreshAfterUnauthorized("some-older-token")).accessToken).toBe("stored-access");
    expect(refreshes()).toHaveLength(0);
  });

  test("refreshAfterUnauthorized: the refused token itself is refreshed once", async () => {
    const { source, refreshes } = setup();
    const fresh = await source.refreshAfterUnauthorized("stored-access");
    expect(fresh.accessToken).not.toBe("stored-access");
    expect(refreshes()).toHaveLength(1);
  });

  test("a refused refresh means reconnect needed: marked in auth.json, no more refresh attempts", async () => {
    const { source, refreshes, store, fake } = setup(30);
    fake.revokeAll();
    const err = await source.token().catch((e) => e);
    expect(AuthReconnectNeeded.is(err)).toBe(true);
    expect(err.message).toContain("fermix auth login --provider codex");
    expect(err.message).toContain("invalid_grant");
    expect(store.read("openai_codex")).toMatchObject({ status: "reauthorization_required", refused: "invalid_grant" });
    expect(profileStates(store, Date.now(), "openai_codex")[0]!.state).toBe("reconnect_needed");
    await expect(source.refreshAfterUnauthorized("stored-access")).rejects.toThrow(/Reconnect needed/);
    expect(refreshes()).toHaveLength(1);
    expect(JSON.stringify(err)).not.toContain("fake-refresh");
  });

  test("a server error is not a refusal: retried, and the profile stays ready", async () => {
    const { source, fake, store } = setup(30);
    fake.failNext(503, 3);
    await expect(source.token()).rejects.toThrow(/refused the token request \(server_error\)/);
    expect(store.read("openai_codex")?.status).toBe("ready");
    fake.failNext(503, 1);
    expect((await source.token()).accessToken).not.toBe("stored-access");
  });

  test("no profile: auth_not_logged_in with the login sentence", async () => {
    const fx = authFixture(defer);
    const source = createProfileTokenSource({ paths: fx.paths, env: fx.env }, "xai_oauth");
    const err = await source.token().catch((e) => e);
    expect(AuthNotLoggedIn.is(err)).toBe(true);
    expect(err.message).toContain("fermix auth login --provider xai");
  });

  test("a setup token has no expiry and is used as is; a 401 on it means reconnect", async () => {
    const fx = authFixture(defer);
    fx.writeAuth({
      version: 2,
      providers: { anthropic_oauth: { auth_mode: "setup_token", tokens: { access_token: "sk-ant-setup" } } },
    });
    const source = createProfileTokenSource({ paths: fx.paths, env: fx.env }, "anthropic_oauth");
    expect(await source.token()).toEqual({ accessToken: "sk-ant-setup" });
    await expect(source.refreshAfterUnauthorized("sk-ant-setup")).rejects.toThrow(/Reconnect needed/);
    expect(fx.fake.tokenCalls).toHaveLength(0);
  });

  describe("across processes", () => {
    // A second bun process takes the profile lock, says so, and waits for a line on stdin before it
    // (optionally) writes a new token and lets go.
    function holdLock(file: string, lock: string, replacement?: string) {
      const script = `
        const { acquirePidLock } = await import(${JSON.stringify(join(import.meta.dir, "../../src/fs/pid-lock.ts"))});
        const { writePrivateFileAtomically } = await import(${JSON.stringify(join(import.meta.dir, "../../src/fs/write-private-file.ts"))});
        const release = await acquirePidLock(${JSON.stringify(lock)}, 5000, () => new Error("busy"));
        console.log("locked");
        for await (const _ of console) break;
        const replacement = ${JSON.stringify(replacement ?? null)};
        if (replacement) {
          const file = JSON.parse(require("node:fs").readFileSync(${JSON.stringify(file)}, "utf8"));
          file.providers.openai_codex.tokens.access_token = replacement;
          file.providers.openai_codex.expires_at = new Date(Date.now() + 3600_000).toISOString();
          writePrivateFileAtomically(${JSON.stringify(file)}, JSON.stringify(file));
        }
        release();
      `;
      const proc = Bun.spawn([process.execPath, "-e", script], { stdin: "pipe", stdout: "pipe", stderr: "inherit" });
      defer(() => proc.kill());
      const reader = proc.stdout.getReader();
      const locked = (async () => {
        let text = "";
        while (!text.includes("locked")) {
          const { value, done } = await reader.read();
          if (done) throw new Error("the lock holder exited early");
          text += new TextDecoder().decode(value);
        }
      })();
      return {
        locked,
        async proceed() {
          proc.stdin.write("go\n");
          await proc.stdin.end();
          return proc.exited;
        },
      };
    }

    test("a refresh waits for another process's refresh and uses the token it stored", async () => {
      const { source, refreshes, paths } = setup(30);
      const holder = holdLock(paths.auth, profileLockPath(paths.auth, "openai_codex"), "refreshed-elsewhere");
      await holder.locked;
      const pending = source.token();
      expect(await holder.proceed()).toBe(0);
      expect((await pending).accessToken).toBe("refreshed-elsewhere");
      expect(refreshes()).toHaveLength(0);
    });

    test("a lock held past the wait is reported busy, with the facts' sentence", async () => {
      const fx = setup(30);
      const source = createProfileTokenSource({ paths: fx.paths, env: fx.env, lockWaitMs: 200 }, "openai_codex");
      const holder = holdLock(fx.paths.auth, profileLockPath(fx.paths.auth, "openai_codex"));
      await holder.locked;
      const err = await source.token().catch((e) => e);
      expect(AuthBusy.is(err)).toBe(true);
      expect(err.message).toBe(BUSY_SENTENCE);
      expect(await holder.proceed()).toBe(0);
      expect((await source.token()).accessToken).not.toBe("stored-access");
    });

    test("a lock left by a process that died is taken over", async () => {
      const { source, paths } = setup(30);
      const dead = Bun.spawn([process.execPath, "-e", "0"]);
      await dead.exited;
      writeFileSync(profileLockPath(paths.auth, "openai_codex"), `${dead.pid} deadbeef`);
      expect((await source.token()).accessToken).not.toBe("stored-access");
    });
  });
});
