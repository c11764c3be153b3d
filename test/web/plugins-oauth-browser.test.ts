import { describe, expect, test } from "bun:test";
import { existsSync, mkdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { chromium, type Page } from "playwright-core";
import { startFakeOpenAIResponses } from "../fake/llm.ts";
import { startFakeOAuthProvider } from "../fake/oauth-provider.ts";
import { cleanupAfterEach } from "../fixture/cleanup.ts";
import { runFermix, startFermixDaemon } from "../fixture/cli.ts";
import { tempHome } from "../fixture/home.ts";
import { freePort } from "../gateway/_whatsapp-daemon.ts";

/*
 * Connecting gmail over OAuth from the Plugins page in Debian's chromium (headless, playwright-core) against the
 * compiled daemon and the fake provider: the client form, Connect (a form POST answered by a 303 to another origin,
 * which chromium holds to the page's CSP form-action), the provider's redirect to the login's listener, the landing
 * page's link back, and the card ready. Skipped without chromium (`apt-get install chromium`).
 */

const CHROMIUM = ["/usr/bin/chromium", Bun.which("chromium")].find((p): p is string => !!p && existsSync(p));
const SHOTS = join(import.meta.dir, "..", "..", ".ci", "out", "web");
const KEY = "sk-proj-browseroauth0123456789abcdefghijklmnop";
const ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run"];
const ARGS_QUIET = ["--disable-background-networking", "--disable-component-update", "--disable-sync"];
const defer = cleanupAfterEach();

if (!CHROMIUM) console.warn(`${import.meta.file} skipped: no chromium (apt-get install chromium)`);

describe.skipIf(!CHROMIUM)("Plugins page OAuth in chromium", () => {
  test("client form → Connect → provider → landing → back to the setup page: gmail ready, no CSP error", async () => {
    const h = tempHome();
    defer(() => h[Symbol.asyncDispose]());
    const llm = await startFakeOpenAIResponses({ apiKey: KEY });
    defer(() => llm.close());
    const fake = startFakeOAuthProvider({ clientSecret: "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6789" });
    defer(() => fake.close());
    const port = await freePort();
    h.writeConfig(
      [
        "[fermix_core]",
        'secret_store = "file"',
        "[fermix_web]",
        `port = ${port}`,
        `webhook_port = ${await freePort()}`,
        "[fermix_core.providers.openai]",
        "primary = true",
        `api_key = "${KEY}"`,
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
    const browser = await chromium.launch({ executablePath: CHROMIUM!, args: [...ARGS, ...ARGS_QUIET] });
    defer(() => browser.close());
    const page: Page = await (await browser.newContext()).newPage();
    const errors: string[] = [];
    page.on("console", (m) => {
      if (m.type() === "error" && !m.location().url.endsWith("/favicon.ico")) errors.push(m.text());
    });
    page.on("pageerror", (e) => errors.push(e.message));
    mkdirSync(SHOTS, { recursive: true });
    const shot = (name: string) => page.screenshot({ path: join(SHOTS, `${name}.png`), fullPage: true });
    const gmail = () => page.locator("section.card").filter({ has: page.locator("h2", { hasText: /^gmail\b/ }) });

    const launch = await runFermix(["setup", "--web", "--no-browser"], { env });
    await page.goto(/http:\/\/127\.0\.0\.1:\d+\/setup\?t=\S+/.exec(launch.stdout)![0]);
    await page.waitForURL(`${origin}/`);
    await page.goto(`${origin}/setup/plugins`);
    await Promise.all([page.waitForURL(/notice=/), gmail().locator("button", { hasText: "Enable" }).click()]);
    expect(await gmail().textContent()).toContain("needs_client_config");

    // The client "modal", reached from the card's link.
    await gmail().locator("a", { hasText: "Set up the google OAuth client" }).click();
    await page.locator("#oauth-client").waitFor();
    await page.fill('#oauth-client input[name="client_id"]', fake.clientId);
    await page.fill('#oauth-client input[name="client_secret"]', fake.clientSecret);
    await shot("plugins-oauth-client");
    await Promise.all([page.waitForURL(/notice=/), page.locator("#oauth-client button").click()]);
    expect(await gmail().textContent()).toContain("needs_auth");
    expect(await page.content()).not.toContain(fake.clientSecret);

    // Connect: 303 to the provider, which redirects to the login's listener; the landing page links back. Chromium
    // holds each hop to the page's form-action: without the provider and loopback there, this navigation aborts.
    await Promise.all([
      page.waitForURL(/127\.0\.0\.1:\d+\/callback\?/),
      gmail().locator("button", { hasText: "Connect" }).click(),
    ]);
    expect(await page.locator("body").textContent()).toContain("Connected — gmail is connected.");
    expect(fake.authorizations).toHaveLength(1);
    await shot("plugins-oauth-connected");
    await Promise.all([
      page.waitForURL(`${origin}/setup/plugins`),
      page.locator("a", { hasText: "Return to the setup page" }).click(),
    ]);
    // The session cookie came along (SameSite=Strict: the click is same-site), and the card is ready.
    expect(await page.locator("h1").textContent()).toBe("Plugins");
    expect(await gmail().locator("strong.ok").textContent()).toBe("ready");
    await shot("plugins-oauth-ready");
    expect(JSON.parse(readFileSync(join(h.home, "auth.json"), "utf8")).plugins.gmail.access_token).toBe(fake.issued[0]);
    expect(errors).toEqual([]);
  }, 120_000);
});
