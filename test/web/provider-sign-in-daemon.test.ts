import { describe, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { startFakeOpenAIResponses } from "../fake/llm.ts";
import { startFakeProviderOAuth } from "../fake/provider-oauth.ts";
import { cleanupAfterEach } from "../fixture/cleanup.ts";
import { startFermixDaemon } from "../fixture/cli.ts";
import { tempHome } from "../fixture/home.ts";
import { openWebSession, type WebAnswer } from "../fixture/web-session.ts";
import { freePort } from "../gateway/_whatsapp-daemon.ts";

/*
 * The provider pane's API-key vs sign-in picker through the compiled daemon: a Claude setup token pasted into the
 * page, the mode flipped back and forth in config.toml (comments kept), and a Grok sign-in started from the page,
 * approved at a fake xAI authorization server and landing on the daemon's loopback listener. No token ever comes
 * back in a response.
 */

const OPENAI_KEY = "sk-proj-signinweb0123456789abcdefghijklmnopq";
const SETUP_TOKEN = "sk-ant-oat01-webSetupToken0123456789abcdefghijklmnop";
const COMMENT = "# the owner's note, kept";
const defer = cleanupAfterEach();

describe("web setup: subscription sign-in on the provider panes", () => {
  test("Claude setup token, the mode picker, and a Grok browser sign-in; no token in any response", async () => {
    const h = tempHome();
    defer(() => h[Symbol.asyncDispose]());
    const llm = await startFakeOpenAIResponses({ apiKey: OPENAI_KEY });
    defer(() => llm.close());
    const oauth = startFakeProviderOAuth();
    defer(() => oauth.close());
    const port = await freePort();
    const configFile = h.writeConfig(
      [
        COMMENT,
        "[fermix_web]",
        `port = ${port}`,
        `webhook_port = ${await freePort()}`,
        "[fermix_core.providers.openai]",
        "primary = true",
        `api_key = "${OPENAI_KEY}"`,
        `base_url = "${llm.baseUrl}"`,
        "[fermix_core.providers.anthropic]",
        'api_key = "sk-ant-api03-notused0123456789"',
        "[fermix_core.providers.xai]",
        'api_key = "xai-notused0123456789abcdef"',
        "",
      ].join("\n"),
    );
    const env = { FERMIX_HOME: h.home, HOME: h.userHome, FERMIX_TEST_OAUTH_BASE_URL: oauth.base };
    const daemon = await startFermixDaemon(env);
    defer(() => daemon.stop());
    const web = await openWebSession(env, port);
    const { get, seen } = web;
    const post = (fields: Record<string, string>) => web.post("/setup/providers", fields);
    const noticeOf = (r: WebAnswer) => web.follow(r);

    // Claude: not signed in; a pasted setup token signs in and switches auth_mode to oauth.
    const pane = await get("/setup/providers?provider=anthropic");
    expect(pane.text).toContain('data-sign-in="anthropic">not logged in');
    const signed = await noticeOf(
      await post({ provider: "anthropic", action: "setup_token", setup_token: SETUP_TOKEN }),
    );
    expect(signed.next.searchParams.get("notice")).toContain("signed in to");
    expect(signed.page.text).toContain('data-sign-in="anthropic">logged in');
    let config = readFileSync(configFile, "utf8");
    expect(config).toContain(COMMENT);
    expect(config).toMatch(/\[fermix_core\.providers\.anthropic\][^[]*auth_mode = "oauth"/);
    expect(readFileSync(join(h.home, "auth.json"), "utf8")).toContain(SETUP_TOKEN);
    // The picker goes back to the key, keeping the sign-in, and forward again.
    await post({ provider: "anthropic", action: "use_mode", mode: "api_key" });
    expect(readFileSync(configFile, "utf8")).toMatch(/\[fermix_core\.providers\.anthropic\][^[]*auth_mode = "api_key"/);
    await post({ provider: "anthropic", action: "use_mode", mode: "oauth" });
    expect(readFileSync(configFile, "utf8")).toMatch(/\[fermix_core\.providers\.anthropic\][^[]*auth_mode = "oauth"/);
    // A bad token is refused without being echoed.
    const bad = await post({ provider: "anthropic", action: "setup_token", setup_token: "two words" });
    expect(new URL(bad.location, web.origin).searchParams.get("error")).toContain("setup token");

    // Grok: Connect sends the browser to xAI's authorize page (CSP lets the form go there); xAI redirects to
    // the daemon's loopback listener; the pane then shows the sign-in and config.toml uses it.
    const providersPage = await get("/setup/providers?provider=xai");
    expect(providersPage.headers.get("content-security-policy")).toContain(new URL(oauth.base).origin);
    const connect = await post({ provider: "xai", action: "sign_in" });
    expect(connect.status).toBe(303);
    expect(connect.location).toStartWith(`${oauth.base}/xai/authorize?`);
    expect(new URL(connect.location).searchParams.get("code_challenge_method")).toBe("S256");
    const landed = await oauth.approve(connect.location);
    expect(landed.status).toBe(200);
    expect(await landed.text()).toContain("signed in");
    const deadline = Date.now() + 30_000;
    while (!(await get("/setup/providers?provider=xai")).text.includes('data-sign-in="xai">logged in')) {
      if (Date.now() > deadline) throw new Error("the Grok sign-in never showed on the pane");
      await Bun.sleep(100);
    }
    config = readFileSync(configFile, "utf8");
    expect(config).toMatch(/\[fermix_core\.providers\.xai\][^[]*auth_mode = "oauth"/);
    expect(config).toContain(COMMENT);

    const log = readFileSync(join(h.home, "logs", "fermix.log"), "utf8");
    for (const secret of [SETUP_TOKEN, OPENAI_KEY, ...oauth.issued]) {
      for (const text of [...seen, log, daemon.stderr()]) expect(text).not.toContain(secret);
    }
  }, 120_000);
});
