import { describe, expect, test } from "bun:test";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { parseConfig } from "../../../src/config/load.ts";
import { createSecretStore } from "../../../src/config/secret-store.ts";
import { resolveSecret } from "../../../src/config/secrets.ts";
import type { AuthManifest } from "../../../src/plugins/oauth/cli.ts";
import { oauthClientState, setOAuthClient } from "../../../src/plugins/oauth/client-config.ts";
import { fakeOAuthEndpoints } from "../../../src/plugins/oauth/fake-endpoints.ts";
import { createTokenStore } from "../../../src/plugins/oauth/token-store.ts";
import { contentSecurityPolicy, withSecurityHeaders } from "../../../src/web/gates.ts";
import type { WebDeps } from "../../../src/web/page.ts";
import { pluginsPage } from "../../../src/web/pages/plugins.ts";
import type { PluginCard, PluginsWeb } from "../../../src/web/plugin-deps.ts";
import { createOAuthConnector } from "../../../src/web/plugin-oauth.ts";
import { startFakeOAuthProvider } from "../../fake/oauth-provider.ts";
import { cleanupAfterEach } from "../../fixture/cleanup.ts";
import { tempHome } from "../../fixture/home.ts";

const defer = cleanupAfterEach();
const CLIENT_SECRET = "GOCSPX-never-in-html-0123456789abcdef";
const AUTHORIZE = "https://accounts.example/o/oauth2/auth?state=abc&code_challenge_method=S256";

function gmail(over: Partial<PluginCard> = {}, oauth: Partial<NonNullable<PluginCard["oauth"]>> = {}): PluginCard {
  return {
    name: "gmail",
    description: "Mail",
    auth: "oauth2",
    source: "bundled",
    version: "1.0.0",
    enabled: true,
    status: "needs_client_config",
    oauth: { provider: "google", secret: "missing", connecting: false, ...oauth },
    ...over,
  };
}

function pageDeps(cards: PluginCard[], over: Partial<PluginsWeb> = {}) {
  const clients: Array<{ provider: string; clientId: string; clientSecret?: string }> = [];
  const connects: string[] = [];
  const plugins: PluginsWeb = {
    list: async () => ({ daemon: true, plugins: cards }),
    act: async () => "done",
    setOAuthClient: async (input) => {
      clients.push(input);
      if (input.clientId === "bad") throw new Error(`refused ${input.clientSecret}`);
      return `${input.provider} OAuth client saved`;
    },
    connect: async (name) => {
      connects.push(name);
      return AUTHORIZE;
    },
    ...over,
  };
  return { deps: { plugins } as unknown as WebDeps, clients, connects };
}

const ctx = (query = "") => ({ csrf: "tok", query: new URLSearchParams(query) });
const form = (o: Record<string, string>) => new URLSearchParams(o);

describe("Plugins page: OAuth client and Connect", () => {
  test("no client yet: the card links to the client form and offers no Connect", async () => {
    const { deps } = pageDeps([gmail()]);
    const out = (await pluginsPage.render(deps, ctx())).html;
    expect(out).toContain("needs_client_config");
    expect(out).toContain('href="/setup/plugins?oauth_client=google#oauth-client"');
    expect(out).not.toContain('value="connect"');
    expect(out).not.toContain('id="oauth-client"');
    expect(out).toContain("fermix plugins auth login gmail");
  });

  test("?oauth_client=google opens the client form: id shown, secret never sent back (set, blank keeps)", async () => {
    const unset = (await pluginsPage.render(pageDeps([gmail()]).deps, ctx("oauth_client=google"))).html;
    expect(unset).toContain('id="oauth-client"');
    expect(unset).toContain('name="provider" value="google"');
    expect(unset).toMatch(
      /Client secret \(not set\) <input type="password" name="client_secret" autocomplete="off" required>/,
    );
    expect(unset).toContain('name="csrf" value="tok"');

    const set = gmail({ status: "needs_auth" }, { clientId: "123.apps.googleusercontent.com", secret: "set" });
    const out = (await pluginsPage.render(pageDeps([set]).deps, ctx("oauth_client=google"))).html;
    expect(out).toContain('name="client_id" value="123.apps.googleusercontent.com"');
    expect(out).toContain("set — leave blank to keep it");
    expect(out).toMatch(/name="client_secret" autocomplete="off">/);
    expect(out).not.toContain(CLIENT_SECRET);
    // with a client, the card has Connect
    expect(out).toContain('name="action" value="connect"><button>Connect</button>');

    const other = (await pluginsPage.render(pageDeps([gmail()]).deps, ctx("oauth_client=<x>"))).html;
    expect(other).toContain(`No plugin here signs in with "&lt;x&gt;"`);
  });

  test("saving the client: through deps, a blank secret keeps the stored one, a refusal never echoes it", async () => {
    const { deps, clients } = pageDeps([gmail()]);
    const saved = await pluginsPage.submit!(
      form({ action: "oauth_client", provider: "google", client_id: "cid", client_secret: CLIENT_SECRET }),
      deps,
    );
    expect(saved).toEqual({ ok: true, notice: "google OAuth client saved" });
    expect(clients[0]).toEqual({ provider: "google", clientId: "cid", clientSecret: CLIENT_SECRET });
    await pluginsPage.submit!(
      form({ action: "oauth_client", provider: "google", client_id: "cid2", client_secret: " " }),
      deps,
    );
    expect(clients[1]).toEqual({ provider: "google", clientId: "cid2" });
    const bad = await pluginsPage.submit!(
      form({ action: "oauth_client", provider: "google", client_id: "bad", client_secret: CLIENT_SECRET }),
      deps,
    );
    expect(bad).toEqual({ ok: false, error: "refused [redacted]" });
    const odd = await pluginsPage.submit!(form({ action: "oauth_client", provider: "../x", client_id: "a" }), deps);
    expect(odd).toMatchObject({ ok: false });
    expect(clients.length).toBe(3);
  });

  test("Connect answers with the provider's authorize URL (the server 303s there); a refusal is the page's error", async () => {
    const { deps, connects } = pageDeps([gmail({ status: "needs_auth" }, { clientId: "cid", secret: "set" })]);
    expect(await pluginsPage.submit!(form({ action: "connect", name: "gmail" }), deps)).toEqual({
      ok: true,
      notice: "",
      location: AUTHORIZE,
    });
    expect(connects).toEqual(["gmail"]);
    const refused = pageDeps([], {
      connect: async () => {
        throw new Error("gmail needs an OAuth client");
      },
    });
    expect(await pluginsPage.submit!(form({ action: "connect", name: "gmail" }), refused.deps)).toEqual({
      ok: false,
      error: "gmail needs an OAuth client",
    });
  });

  test("the ladder on the card: ready gets Reconnect, reauthorization_required the Reconnect needed badge", async () => {
    const ready = gmail({ status: "ready" }, { clientId: "cid", secret: "set" });
    const stale = {
      ...gmail({ status: "reauthorization_required" }, { clientId: "cid", secret: "set" }),
      name: "gcal",
    };
    const pending = {
      ...gmail({ status: "needs_auth" }, { clientId: "cid", secret: "set", connecting: true }),
      name: "gdrive",
    };
    const out = (await pluginsPage.render(pageDeps([ready, stale, pending]).deps, ctx())).html;
    expect(out).toContain('<strong class="ok">ready</strong>');
    expect(out).toContain('<strong class="fail">Reconnect needed</strong>');
    expect(out.match(/<button>Reconnect<\/button>/g)?.length).toBe(2);
    expect(out).toContain("Connect (a sign-in is waiting in the browser)");
  });
});

describe("the Plugins page's CSP", () => {
  test("form-action names the providers Connect redirects to; other pages keep 'self' only", () => {
    const { deps } = pageDeps([], { formTargets: () => ["https://accounts.google.com"] });
    expect(pluginsPage.formTargets!(deps)).toEqual(["https://accounts.google.com"]);
    expect(contentSecurityPolicy(["https://accounts.google.com"])).toContain(
      "form-action 'self' https://accounts.google.com;",
    );
    const own = new Response("x", { headers: { "content-security-policy": contentSecurityPolicy(["https://x.com"]) } });
    expect(withSecurityHeaders(own).headers.get("content-security-policy")).toContain(
      "form-action 'self' https://x.com;",
    );
    expect(withSecurityHeaders(new Response("x")).headers.get("content-security-policy")).toContain(
      "form-action 'self';",
    );
  });
});

describe("OAuth client config", () => {
  test("client_id in config.toml, the secret in the file store as @keyring; blank keeps; state never shows it", async () => {
    const h = tempHome();
    defer(() => h[Symbol.asyncDispose]());
    const file = h.writeConfig('# mine\n[fermix_core]\nsecret_store = "file"\n');
    const store = createSecretStore({ secretsDir: join(h.home, "secrets"), prefer: "file" });
    await expect(setOAuthClient(file, store, { provider: "google", clientId: "cid" })).rejects.toThrow(
      /client secret too/,
    );
    expect(readFileSync(file, "utf8")).toBe('# mine\n[fermix_core]\nsecret_store = "file"\n');
    const r = await setOAuthClient(file, store, { provider: "google", clientId: " cid ", clientSecret: CLIENT_SECRET });
    expect(r.where).toBe("file");
    const text = readFileSync(file, "utf8");
    expect(text).toStartWith("# mine\n");
    expect(text).toContain('[fermix_core.oauth.google]\nclient_id = "cid"\nclient_secret = "@keyring"');
    expect(text).not.toContain(CLIENT_SECRET);
    expect(readFileSync(join(h.home, "secrets", "OAUTH_GOOGLE_CLIENT_SECRET"), "utf8")).toBe(CLIENT_SECRET);
    await setOAuthClient(file, store, { provider: "google", clientId: "cid2" });
    const config = parseConfig(readFileSync(file, "utf8"), file);
    expect(oauthClientState(config, store, "google")).toEqual({ clientId: "cid2", secret: "set" });
    await expect(setOAuthClient(file, store, { provider: "nope", clientId: "x", clientSecret: "y" })).rejects.toThrow(
      /no OAuth support/,
    );
    await expect(setOAuthClient(file, store, { provider: "google", clientId: "a b" })).rejects.toThrow(/client id/);
  });

  test("a test's fake endpoints are taken on loopback only", () => {
    expect(fakeOAuthEndpoints({ FERMIX_TEST_OAUTH_GOOGLE: "http://127.0.0.1:9/x" }, "google")).toEqual({
      authorizeUrl: "http://127.0.0.1:9/authorize",
      tokenUrl: "http://127.0.0.1:9/token",
    });
    expect(fakeOAuthEndpoints({ FERMIX_TEST_OAUTH_GOOGLE: "https://evil.example" }, "google")).toBeUndefined();
    expect(fakeOAuthEndpoints({}, "google")).toBeUndefined();
  });
});

const MANIFESTS: Record<string, AuthManifest> = {
  gmail: { auth: { type: "oauth2", provider: "google", scopes: ["gmail.readonly"] } },
  google_calendar: { auth: { type: "oauth2", provider: "google", scopes: ["calendar"] } },
};

/** The connector with the CLI's real login against the fake provider, in process. */
function connector(opts: { timeoutSeconds?: number } = {}) {
  const h = tempHome();
  defer(() => h[Symbol.asyncDispose]());
  const fake = startFakeOAuthProvider({ expiresIn: 3600 });
  defer(() => fake.close());
  const configFile = h.writeConfig(
    `[fermix_core.oauth.google]\nclient_id = "${fake.clientId}"\nclient_secret = "$G_SECRET"\n`,
  );
  const store = createTokenStore(join(h.home, "auth.json"));
  const reloads: number[] = [];
  const errors: string[] = [];
  let logged: (m: string) => void = () => {};
  const nextError = new Promise<string>((resolve) => {
    logged = resolve;
  });
  const web = createOAuthConnector({
    webPort: 4030,
    timeoutSeconds: opts.timeoutSeconds,
    deps: async () => ({
      configFile,
      config: parseConfig(readFileSync(configFile, "utf8"), configFile),
      store,
      manifestFor: (n) => MANIFESTS[n],
      resolveSecret: (ref, slot) =>
        resolveSecret(ref, slot, { env: { G_SECRET: fake.clientSecret }, secretsDir: join(h.home, "secrets") }),
      endpoints: () => fake.endpoints,
    }),
    afterConnect: async () => reloads.push(1),
    log: {
      info() {},
      error(m) {
        errors.push(m);
        logged(m);
      },
    },
  });
  return { h, fake, web, store, configFile, reloads, errors, nextError };
}

describe("the web OAuth connector (the CLI's login, the browser sent to the provider)", () => {
  test("Connect -> authorize URL with S256 and state; the redirect lands on 'Connected' linking back; token stored", async () => {
    const { fake, web, store, configFile, reloads } = connector();
    const url = new URL(await web.connect("gmail"));
    expect(url.origin + url.pathname).toBe(fake.endpoints.authorizeUrl);
    expect(url.searchParams.get("code_challenge_method")).toBe("S256");
    expect(url.searchParams.get("code_challenge")).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(url.searchParams.get("state")).toMatch(/^[A-Za-z0-9_-]{20,}$/);
    expect(url.searchParams.get("redirect_uri")).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/callback$/);
    // One login per provider: the same plugin rejoins it, another plugin of the provider waits.
    expect(await web.connect("gmail")).toBe(url.toString());
    await expect(web.connect("google_calendar")).rejects.toThrow(/google sign-in for gmail is under way/);
    expect(web.pending("google")).toBe("gmail");

    const landed = await fake.approve(url.toString());
    expect(landed.status).toBe(200);
    const page = await landed.text();
    expect(page).toContain("Connected — gmail is connected.");
    expect(page).toContain('<a href="http://127.0.0.1:4030/setup/plugins">Return to the setup page</a>');
    expect(landed.headers.get("referrer-policy")).toBe("no-referrer");
    expect(store.get("gmail")?.access_token).toBe(fake.issued[0]);
    expect(reloads).toEqual([1]);
    expect(readFileSync(configFile, "utf8")).toContain('enabled = ["gmail"]');
    for (const s of [...fake.issued, fake.clientSecret]) expect(page).not.toContain(s);
    expect(web.pending("google")).toBeUndefined();
    // The listener is closed: nothing answers on the redirect URI any more.
    await expect(fetch(url.searchParams.get("redirect_uri")!)).rejects.toThrow();
  });

  test("a redirect with a wrong state is refused, writes nothing, and ends the login", async () => {
    const { fake, web, store, configFile, nextError } = connector();
    const before = readFileSync(configFile, "utf8");
    const url = await web.connect("gmail");
    const landed = await fake.approve(url, (redirect) => redirect.searchParams.set("state", "forged"));
    expect(landed.status).toBe(400);
    expect(await landed.text()).toContain("gmail was not connected: the redirect from google carried the wrong state");
    expect(await nextError).toMatch(/wrong state/);
    expect(store.get("gmail")).toBeUndefined();
    expect(existsSync(store.file)).toBe(false);
    expect(readFileSync(configFile, "utf8")).toBe(before);
    expect(fake.tokenCalls).toEqual([]);
    expect(web.pending("google")).toBeUndefined();
  });

  test("a login nobody finishes times out (the CLI's timeout) and its listener is closed", async () => {
    const { web, store, nextError } = connector({ timeoutSeconds: 0.2 });
    const url = new URL(await web.connect("gmail"));
    expect(await nextError).toMatch(/no redirect from google arrived within 1s/);
    expect(web.pending("google")).toBeUndefined();
    await expect(fetch(url.searchParams.get("redirect_uri")!)).rejects.toThrow();
    expect(store.get("gmail")).toBeUndefined();
    // and a new Connect starts a fresh login
    expect(await web.connect("gmail")).not.toBe(url.toString());
  });

  test("a plugin with no OAuth client: the CLI's refusal, nothing pending", async () => {
    const { web, configFile } = connector();
    const { writeFileSync } = await import("node:fs");
    writeFileSync(configFile, "");
    await expect(web.connect("gmail")).rejects.toThrow(/needs an OAuth client/);
    expect(web.pending("google")).toBeUndefined();
  });
});
