import { describe, expect, test } from "bun:test";
import { join } from "node:path";
import { OAuthDenied, OAuthStateMismatch } from "../../../src/plugins/oauth/_loopback.ts";
import { OAuthTokenRejected } from "../../../src/plugins/oauth/_token-request.ts";
import {
  type LoginInput,
  login,
  logout,
  OAuthNotConnected,
  OAuthReauthorizationRequired,
  OAuthTimeout,
  refresh,
} from "../../../src/plugins/oauth/login.ts";
import { createTokenStore } from "../../../src/plugins/oauth/token-store.ts";
import { type FakeOAuthOptions, type FakeOAuthProvider, startFakeOAuthProvider } from "../../fake/oauth-provider.ts";
import { cleanupAfterEach } from "../../fixture/cleanup.ts";
import { tempHome } from "../../fixture/home.ts";

const defer = cleanupAfterEach();
const NOW = new Date("2026-03-01T12:00:00.000Z");

function setup(opts: FakeOAuthOptions = {}) {
  const home = tempHome();
  defer(() => home[Symbol.asyncDispose]());
  const fake = startFakeOAuthProvider(opts);
  defer(() => fake.close());
  const store = createTokenStore(join(home.home, "auth.json"));
  const printed: string[] = [];
  const input = (over: Partial<LoginInput> = {}): LoginInput => ({
    plugin: "github",
    provider: "github",
    scopes: ["repo", "read:user"],
    clientId: fake.clientId,
    clientSecret: fake.clientSecret,
    store,
    endpoints: fake.endpoints,
    now: () => NOW,
    printUrl: (url) => printed.push(url),
    // The browser: open the printed URL, let the user approve, follow the redirect back to fermix.
    openBrowser: async (url) => void (await fake.approve(url)),
    ...over,
  });
  const deps = { clientId: fake.clientId, clientSecret: fake.clientSecret, store, endpoints: fake.endpoints };
  return { fake, store, printed, input, deps };
}

function expectNoSecrets(fake: FakeOAuthProvider, texts: string[]) {
  for (const text of texts) {
    for (const secret of [...fake.issued, fake.clientSecret]) expect(text).not.toContain(secret);
  }
}

describe("login", () => {
  test("PKCE + state through the loopback redirect stores the token and prints only the URL", async () => {
    const { fake, store, printed, input } = setup({ expiresIn: 3600, scopeSeparator: "," });
    const result = await login(input());
    expect(result).toEqual({ account: undefined, scopes: ["repo", "read:user"] });
    expect(printed).toHaveLength(1);
    const q = new URL(printed[0]!).searchParams;
    expect(q.get("code_challenge_method")).toBe("S256");
    expect(q.get("code_challenge")).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(q.get("state")!.length).toBeGreaterThanOrEqual(20);
    expect(q.get("redirect_uri")).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/callback$/);
    expect(q.get("scope")).toBe("repo read:user");
    const token = store.get("github")!;
    expect(token.access_token).toBe(fake.issued[0]!);
    expect(token.refresh_token).toBe(fake.issued[1]!);
    expect(token.expires_at).toBe("2026-03-01T13:00:00.000Z");
    expect(token.obtained_at).toBe(NOW.toISOString());
    expect(store.state("github", NOW)).toBe("valid");
    expectNoSecrets(fake, printed);
  });

  test("two logins use different verifiers and states", async () => {
    const { printed, input } = setup();
    await login(input());
    await login(input());
    const [a, b] = printed.map((u) => new URL(u).searchParams);
    expect(a!.get("state")).not.toBe(b!.get("state"));
    expect(a!.get("code_challenge")).not.toBe(b!.get("code_challenge"));
  });

  test("--no-browser: the user opens the printed URL", async () => {
    const { fake, store, input } = setup();
    const result = await login(
      input({
        openBrowser: undefined,
        printUrl: (url) => void fake.approve(url),
      }),
    );
    expect(result.scopes).toEqual(["repo", "read:user"]);
    expect(store.get("github")).toBeDefined();
  });

  test("a redirect with the wrong state is refused and nothing is exchanged or stored", async () => {
    const { fake, store, input } = setup();
    let page: Promise<Response> | undefined;
    const attempt = login(
      input({
        openBrowser: (url) => {
          page = fake.approve(url, (redirect) => redirect.searchParams.set("state", "forged"));
        },
      }),
    );
    await expect(attempt).rejects.toMatchObject({ code: OAuthStateMismatch.code });
    expect((await page!).status).toBe(400);
    expect(fake.tokenCalls).toEqual([]);
    expect(store.get("github")).toBeUndefined();
  });

  test("the user declining comes back as a named error", async () => {
    const { fake, store, input } = setup();
    fake.denyNext("access_denied");
    await expect(login(input())).rejects.toThrow(/did not authorize fermix \(access_denied\): The user said no/);
    await expect(login(input())).resolves.toBeDefined();
    expect(store.get("github")).toBeDefined();
    expect(OAuthDenied.code).toBe("oauth_denied");
  });

  test("a code redeemed with the wrong PKCE verifier is refused by the provider", async () => {
    const { fake, store, input } = setup();
    // A man in the middle holding the code but not the verifier.
    const tampering: typeof fetch = Object.assign(
      (url: string | URL | Request, init?: RequestInit) => {
        const body = new URLSearchParams(String(init?.body));
        body.set("code_verifier", "x".repeat(43));
        return fetch(url, { ...init, body: body.toString() });
      },
      { preconnect: fetch.preconnect },
    );
    const error = await login(input({ fetch: tampering })).catch((e) => e);
    expect(error).toMatchObject({ code: OAuthTokenRejected.code, data: { error: "invalid_grant", status: 400 } });
    expect(fake.tokenCalls).toEqual([{ grant_type: "authorization_code", status: 400, error: "invalid_grant" }]);
    expect(store.get("github")).toBeUndefined();
    expectNoSecrets(fake, [error.message]);
  });

  test("no redirect within the timeout ends the login and frees the port", async () => {
    const { printed, store, input } = setup();
    await expect(login(input({ openBrowser: undefined, timeoutMs: 30 }))).rejects.toMatchObject({
      code: OAuthTimeout.code,
      message: expect.stringContaining("no redirect from github arrived"),
    });
    const redirect = new URL(printed[0]!).searchParams.get("redirect_uri")!;
    await expect(fetch(redirect)).rejects.toThrow();
    expect(store.get("github")).toBeUndefined();
  });

  test("GitHub's HTTP 200 error bodies are errors", async () => {
    const { input } = setup({ errorsAs200: true, clientSecret: "other" });
    await expect(login(input({ clientSecret: "wrong" }))).rejects.toMatchObject({
      data: { error: "invalid_client", status: 200 },
    });
  });

  test("Basic client auth with a JSON body (Notion) and the account from the token response", async () => {
    const { fake, store, input } = setup({
      clientAuth: "basic",
      bodyEncoding: "json",
      extra: { workspace_name: "Acme", owner: { user: { person: { email: "ada@example.com" } } } },
    });
    const result = await login(input({ plugin: "notion", provider: "notion", scopes: [] }));
    expect(result).toEqual({ account: "ada@example.com", scopes: [] });
    expect(fake.authorizations[0]!.get("owner")).toBe("user");
    expect(fake.authorizations[0]!.has("scope")).toBe(false);
    expect(store.get("notion")!.provider).toBe("notion");
  });

  test("Google asks for offline access with consent so a refresh token comes back", async () => {
    const { fake, input } = setup();
    await login(
      input({ plugin: "gmail", provider: "google", scopes: ["https://www.googleapis.com/auth/gmail.readonly"] }),
    );
    expect(fake.authorizations[0]!.get("access_type")).toBe("offline");
    expect(fake.authorizations[0]!.get("prompt")).toBe("consent");
  });

  test("an unknown provider names the known ones", async () => {
    const { input } = setup();
    await expect(login(input({ provider: "myspace" }))).rejects.toThrow(/knows github, google, notion, x/);
  });
});

describe("refresh and logout", () => {
  test("refresh replaces the access token and keeps a refresh token the provider did not resend", async () => {
    const { fake, store, input, deps } = setup({ expiresIn: 60 });
    await login(input());
    const before = store.get("github")!;
    const later = new Date(NOW.getTime() + 3_600_000);
    const after = await refresh("github", { ...deps, now: () => later });
    expect(after.access_token).not.toBe(before.access_token);
    expect(after.refresh_token).toBe(before.refresh_token!);
    expect(after.expires_at).toBe(new Date(later.getTime() + 60_000).toISOString());
    expect(store.get("github")).toEqual(after);
    expect(fake.tokenCalls.at(-1)).toEqual({ grant_type: "refresh_token", status: 200 });
  });

  test("a rotating provider's new refresh token is stored", async () => {
    const { store, input, deps } = setup({ clientAuth: "basic", rotate: true });
    await login(input({ plugin: "x", provider: "x", scopes: ["tweet.read", "offline.access"] }));
    const first = store.get("x")!.refresh_token;
    await refresh("x", deps);
    const second = store.get("x")!.refresh_token;
    expect(second).not.toBe(first!);
    await refresh("x", deps);
    expect(store.state("x")).toBe("valid");
  });

  test("concurrent refreshes spend a rotating refresh token once", async () => {
    const { fake, store, input, deps } = setup({ rotate: true });
    await login(input());
    const [a, b] = await Promise.all([refresh("github", deps), refresh("github", deps)]);
    expect(a).toEqual(b);
    expect(fake.tokenCalls.filter((c) => c.grant_type === "refresh_token")).toEqual([
      { grant_type: "refresh_token", status: 200 },
    ]);
    expect(store.state("github")).toBe("valid");
  });

  test("invalid_grant marks the plugin invalidated with the reauthorize fix", async () => {
    const { fake, store, input, deps } = setup();
    await login(input());
    fake.revokeAll();
    await expect(refresh("github", deps)).rejects.toMatchObject({
      code: OAuthReauthorizationRequired.code,
      message: "github needs reconnection. Run fermix plugins auth reauthorize github.",
    });
    expect(store.state("github")).toBe("invalidated");
    // A new login clears it.
    await login(input());
    expect(store.state("github")).toBe("valid");
  });

  test("a token with no refresh token, or none at all, says what to run", async () => {
    const { store, input, deps } = setup({ refreshTokens: false });
    await expect(refresh("github", deps)).rejects.toMatchObject({ code: OAuthNotConnected.code });
    await login(input());
    await expect(refresh("github", deps)).rejects.toThrow(/Run fermix plugins auth reauthorize github/);
    expect(store.state("github")).toBe("valid");
  });

  test("logout removes the token", async () => {
    const { store, input } = setup();
    await login(input());
    expect(await logout("github", store)).toBe(true);
    expect(store.get("github")).toBeUndefined();
    expect(await logout("github", store)).toBe(false);
  });
});
