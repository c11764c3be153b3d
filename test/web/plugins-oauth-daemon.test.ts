import { describe, expect, test } from "bun:test";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { startFakeOpenAIResponses } from "../fake/llm.ts";
import { startFakeOAuthProvider } from "../fake/oauth-provider.ts";
import { cleanupAfterEach } from "../fixture/cleanup.ts";
import { runFermix, startFermixDaemon } from "../fixture/cli.ts";
import { tempHome } from "../fixture/home.ts";
import { freePort } from "../gateway/_whatsapp-daemon.ts";

/*
 * Connecting an OAuth plugin (the bundled gmail, provider google) from the Plugins page of the compiled daemon:
 * the client id/secret form, then Connect → 303 to the provider (the fake, through FERMIX_TEST_OAUTH_GOOGLE, which
 * only takes a loopback origin) → the fake redirects to the login's loopback listener → token stored → the card
 * walks the ladder needs_client_config → needs_auth → ready. A redirect with a forged state is refused. Every
 * response, the log and config.toml are scanned for the client secret and the issued tokens.
 */

const OPENAI_KEY = "sk-proj-weboauth0123456789abcdefghijklmnopqrst";
const defer = cleanupAfterEach();

async function setup() {
  const h = tempHome();
  defer(() => h[Symbol.asyncDispose]());
  const llm = await startFakeOpenAIResponses({ apiKey: OPENAI_KEY });
  defer(() => llm.close());
  const fake = startFakeOAuthProvider({ clientSecret: "GOCSPX-fake-web-client-secret-0123456789", expiresIn: 3600 });
  defer(() => fake.close());
  const port = await freePort();
  const configFile = h.writeConfig(
    [
      "# my fermix",
      "[fermix_core]",
      'secret_store = "file"',
      "[fermix_web]",
      `port = ${port}`,
      `webhook_port = ${await freePort()}`,
      "[fermix_core.providers.openai]",
      "primary = true",
      `api_key = "${OPENAI_KEY}"`,
      `base_url = "${llm.baseUrl}"`,
      "",
    ].join("\n"),
  );
  const env = {
    FERMIX_HOME: h.home,
    HOME: h.userHome,
    FERMIX_TEST_OAUTH_GOOGLE: new URL(fake.endpoints.authorizeUrl).origin,
  };
  const daemon = await startFermixDaemon(env);
  defer(() => daemon.stop());
  const origin = `http://127.0.0.1:${port}`;
  const seen: string[] = [];
  /** A browser request: no redirect following; every answer kept for the secret scan. */
  const ask = async (path: string, init: RequestInit = {}) => {
    const r = await fetch(`${origin}${path}`, { redirect: "manual", ...init });
    const text = await r.text();
    seen.push(text, JSON.stringify([...r.headers]));
    return { status: r.status, text, headers: r.headers, location: r.headers.get("location") ?? "" };
  };
  const login = async () => {
    const out = await runFermix(["setup", "--web", "--no-browser"], { env });
    expect(out.code).toBe(0);
    const url = new URL(/http:\/\/127\.0\.0\.1:\d+\/setup\?t=\S+/.exec(out.stdout)![0]);
    const r = await ask(`${url.pathname}${url.search}`);
    expect(r.status).toBe(303);
    return r.headers.get("set-cookie")!.split(";")[0]!;
  };
  const scan = () => {
    const log = readFileSync(join(h.home, "logs", "fermix.log"), "utf8");
    const config = readFileSync(configFile, "utf8");
    for (const secret of [OPENAI_KEY, fake.clientSecret, ...fake.issued]) {
      for (const text of [...seen, log, daemon.stderr()]) expect(text).not.toContain(secret);
    }
    expect(config).not.toContain(fake.clientSecret);
  };
  return { h, fake, env, port, origin, configFile, ask, login, scan, seen };
}

/** The status of one plugin's card on the Plugins page. */
function cardStatus(page: string, name: string): string | undefined {
  const card = page.split('<section class="card">').find((c) => c.startsWith(`<h2>${name} `));
  return card ? /Status: <strong class="[^"]*">([a-z_]+)<\/strong>/.exec(card)?.[1] : undefined;
}

describe("web setup: connecting an OAuth plugin in the daemon", () => {
  test("client form → Connect → provider → callback → token stored → card ready; a forged state is refused", async () => {
    const s = await setup();
    const cookie = await s.login();
    const get = (path: string) => s.ask(path, { headers: { cookie } });
    const post = async (fields: Record<string, string>) => {
      const csrf = /name="csrf" value="([^"]+)"/.exec((await get("/setup/plugins")).text)![1]!;
      return s.ask("/setup/plugins", {
        method: "POST",
        headers: { cookie, origin: s.origin, "content-type": "application/x-www-form-urlencoded" },
        body: new URLSearchParams({ csrf, ...fields }).toString(),
      });
    };

    // Enabled but no client: the first OAuth rung of the ladder, a link to the client form and no Connect.
    expect((await post({ name: "gmail", action: "enable" })).status).toBe(303);
    let page = (await get("/setup/plugins")).text;
    expect(cardStatus(page, "gmail")).toBe("needs_client_config");
    expect(page).toContain('href="/setup/plugins?oauth_client=google#oauth-client"');

    // Connect will 303 to the provider: the page's CSP lets its forms be redirected there (Chrome checks it).
    const csp = (await get("/setup/plugins")).headers.get("content-security-policy")!;
    expect(csp).toContain(`form-action 'self' https://github.com ${new URL(s.fake.endpoints.authorizeUrl).origin} `);
    expect(csp).toContain("default-src 'none'");
    expect((await get("/")).headers.get("content-security-policy")).toContain("form-action 'self';");

    // The "modal": the client form for google.
    const modal = await get("/setup/plugins?oauth_client=google");
    expect(modal.text).toContain('id="oauth-client"');
    expect(modal.text).toContain("Client secret (not set)");
    const saved = await post({
      action: "oauth_client",
      provider: "google",
      client_id: s.fake.clientId,
      client_secret: s.fake.clientSecret,
    });
    expect(saved.status).toBe(303);
    const notice = new URL(saved.location, s.origin).searchParams.get("notice");
    expect(notice).toBe("google OAuth client saved; secret stored in the file store");
    const config = readFileSync(s.configFile, "utf8");
    expect(config).toStartWith("# my fermix\n");
    expect(config).toContain(
      `[fermix_core.oauth.google]\nclient_id = "${s.fake.clientId}"\nclient_secret = "@keyring"`,
    );
    expect(readFileSync(join(s.h.home, "secrets", "OAUTH_GOOGLE_CLIENT_SECRET"), "utf8")).toBe(s.fake.clientSecret);
    page = (await get("/setup/plugins?oauth_client=google")).text;
    expect(cardStatus(page, "gmail")).toBe("needs_auth");
    expect(page).toContain("set — leave blank to keep it");
    expect(page).toContain(`value="${s.fake.clientId}"`);

    // Connect: 303 to the provider's authorize URL with PKCE S256 and a state.
    const connect = await post({ name: "gmail", action: "connect" });
    expect(connect.status).toBe(303);
    const authorize = new URL(connect.location);
    expect(`${authorize.origin}${authorize.pathname}`).toBe(s.fake.endpoints.authorizeUrl);
    expect(authorize.searchParams.get("code_challenge_method")).toBe("S256");
    expect(authorize.searchParams.get("code_challenge")).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(authorize.searchParams.get("state")).toMatch(/^[A-Za-z0-9_-]{20,}$/);
    expect(authorize.searchParams.get("client_id")).toBe(s.fake.clientId);
    const redirectUri = authorize.searchParams.get("redirect_uri")!;
    expect(redirectUri).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/callback$/);
    // A second Connect while this one is pending rejoins it.
    expect((await post({ name: "gmail", action: "connect" })).location).toBe(connect.location);
    expect((await get("/setup/plugins")).text).toContain("Connect (a sign-in is waiting in the browser)");

    // The browser follows it: the fake provider redirects to the login's listener with code + state.
    const landed = await s.fake.approve(connect.location);
    const landing = await landed.text();
    s.seen.push(landing);
    expect(landed.status).toBe(200);
    expect(landing).toContain("Connected — gmail is connected.");
    expect(landing).toContain(`<a href="http://127.0.0.1:${s.port}/setup/plugins">Return to the setup page</a>`);
    const auth = JSON.parse(readFileSync(join(s.h.home, "auth.json"), "utf8"));
    expect(auth.plugins.gmail.access_token).toBe(s.fake.issued[0]);
    expect(s.fake.tokenCalls).toEqual([{ grant_type: "authorization_code", status: 200 }]);
    page = (await get("/setup/plugins")).text;
    expect(cardStatus(page, "gmail")).toBe("ready");
    expect(page).toContain("<button>Reconnect</button>");
    // The listener is gone once the login is over.
    await expect(fetch(redirectUri)).rejects.toThrow();

    // Reconnect, but the redirect comes back with a forged state: refused, nothing written.
    const again = await post({ name: "gmail", action: "connect" });
    expect(again.status).toBe(303);
    const before = readFileSync(join(s.h.home, "auth.json"), "utf8");
    const forged = await s.fake.approve(again.location, (r) => r.searchParams.set("state", "forged-state"));
    const refusedText = await forged.text();
    s.seen.push(refusedText);
    expect(forged.status).toBe(400);
    expect(refusedText).toContain("gmail was not connected: the redirect from google carried the wrong state");
    expect(readFileSync(join(s.h.home, "auth.json"), "utf8")).toBe(before);
    expect(s.fake.tokenCalls.length).toBe(1);
    await expect(fetch(new URL(again.location).searchParams.get("redirect_uri")!)).rejects.toThrow();
    expect(cardStatus((await get("/setup/plugins")).text, "gmail")).toBe("ready");
    expect(existsSync(join(s.h.home, "secrets", "OAUTH_GOOGLE_CLIENT_SECRET"))).toBe(true);
    s.scan();
  }, 90_000);
});
