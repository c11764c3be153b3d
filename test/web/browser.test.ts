import { describe, expect, test } from "bun:test";
import { existsSync, mkdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { type Browser, type BrowserContext, chromium, type Page } from "playwright-core";
import { parse } from "smol-toml";
import { startFakeOpenAIResponses } from "../fake/llm.ts";
import { startFakeTelegram } from "../fake/telegram-bot-api.ts";
import { cleanupAfterEach } from "../fixture/cleanup.ts";
import { runFermix, startFermixDaemon } from "../fixture/cli.ts";
import { tempHome } from "../fixture/home.ts";
import { freePort } from "../gateway/_whatsapp-daemon.ts";
import { type SeedCall, seedUsage } from "./_usage-seed.ts";

/*
 * The setup page in a real browser: Debian's chromium (headless) driven by playwright-core against the compiled
 * daemon. The launch link sets the session cookie and the pages render under the CSP with no console error; the form
 * flows (logout, Providers, Plugins, Personalization, Channels) run as a person would. Each page visited is screenshotted into
 * .ci/out/web/ (CI keeps .ci/out as its reports). Without chromium the whole file is skipped: `apt-get install
 * chromium` (.ci/run does it).
 */

const CHROMIUM = ["/usr/bin/chromium", Bun.which("chromium")].find((p): p is string => !!p && existsSync(p));
const SHOTS = join(import.meta.dir, "..", "..", ".ci", "out", "web");
const OLD_KEY = "sk-proj-browserOLD0123456789abcdefghijklmnopqrs";
const NEW_KEY = "sk-proj-browserNEW0123456789abcdefghijklmnopqrs";
const COMMENT = "# kept: a comment the Providers page must not lose";
// Chromium alone on a closed network: no Google services, no first-run, no GPU.
const ARGS = [
  "--headless",
  "--no-sandbox",
  "--disable-gpu",
  "--disable-quic",
  "--no-first-run",
  "--disable-background-networking",
  "--disable-component-update",
  "--disable-sync",
];
const SETUP_PAGES = [
  "/setup/providers",
  "/setup/personalization",
  "/setup/plugins",
  "/setup/channels",
  "/setup/voice",
  "/setup/search",
  "/setup/media",
  "/setup/sandbox",
  "/setup/coding",
  "/setup/memory",
] as const;

const defer = cleanupAfterEach();

if (!CHROMIUM) {
  console.warn(
    "test/web/browser.test.ts skipped: no chromium at /usr/bin/chromium or on PATH (apt-get install chromium)",
  );
}

/** `usage`: ledger rows written into memory.db before the daemon starts (the Usage page's data). */
async function world(opts: { usage?: readonly SeedCall[] } = {}) {
  const h = tempHome();
  defer(() => h[Symbol.asyncDispose]());
  const llm = await startFakeOpenAIResponses({ apiKey: NEW_KEY });
  defer(() => llm.close());
  const telegram = await startFakeTelegram();
  defer(() => telegram.close());
  const port = await freePort();
  const webhookPort = await freePort();
  const configFile = h.writeConfig(
    [
      COMMENT,
      "[fermix_web]",
      `port = ${port}`,
      `webhook_port = ${webhookPort}`,
      "",
      "[fermix_core.providers.openai]",
      "primary = true",
      `api_key = "${OLD_KEY}"`,
      `base_url = "${llm.baseUrl}"`,
      "",
      "[fermix_core.providers.anthropic]",
      'api_key = "sk-ant-api03-browserFallback0123456789"',
      "",
      "[fermix_channels.telegram]",
      "enabled = false",
      `api_base_url = "${telegram.baseUrl}"`,
      "",
    ].join("\n"),
  );
  if (opts.usage) seedUsage(join(h.home, "memory.db"), opts.usage);
  const env = { FERMIX_HOME: h.home, HOME: h.userHome };
  const daemon = await startFermixDaemon(env);
  defer(() => daemon.stop());
  const origin = `http://127.0.0.1:${port}`;

  // playwright-core gives each launch a fresh --user-data-dir of its own (and refuses one in args).
  const browser: Browser = await chromium.launch({ executablePath: CHROMIUM!, args: ARGS });
  defer(() => browser.close());
  const context: BrowserContext = await browser.newContext();
  const page: Page = await context.newPage();
  // Console errors (a CSP violation is one) and uncaught page errors, collected for the whole session.
  const errors: string[] = [];
  page.on("console", (m) => {
    // The favicon the server has none of is chromium's own request, not the page's.
    if (m.type() === "error" && !m.location().url.endsWith("/favicon.ico")) {
      errors.push(`console: ${m.text()} (${m.location().url})`);
    }
  });
  page.on("pageerror", (e) => errors.push(`pageerror: ${e.message}`));

  mkdirSync(SHOTS, { recursive: true });
  const shot = (name: string) => page.screenshot({ path: join(SHOTS, `${name}.png`), fullPage: true });

  const mint = async () => {
    const out = await runFermix(["setup", "--web", "--no-browser"], { env });
    expect(out.code).toBe(0);
    const url = /http:\/\/127\.0\.0\.1:\d+\/setup\?t=\S+/.exec(out.stdout)?.[0];
    expect(url).toBeDefined();
    return url!;
  };
  /**
   * Clicks a form's button and waits for its POST's answer: a refusal fails at once with the server's words; a
   * page's post/redirect/get lands with a notice, never an error.
   */
  const submit = async (button: ReturnType<Page["locator"]>, expected = 303) => {
    const [response] = await Promise.all([
      page.waitForResponse((r) => r.request().method() === "POST"),
      button.click(),
    ]);
    if (response.status() !== expected) {
      throw new Error(`POST ${response.url()} answered ${response.status()}: ${await response.text()}`);
    }
    await page.waitForLoadState();
    expect(new URL(page.url()).searchParams.get("error")).toBeNull();
  };
  return {
    submit,
    h,
    env,
    llm,
    telegram,
    port,
    origin,
    configFile,
    daemon,
    browser,
    context,
    page,
    errors,
    shot,
    mint,
  };
}

describe.skipIf(!CHROMIUM)("web setup page in chromium", () => {
  test("launch link → HttpOnly SameSite=Strict cookie → dashboard, doctor, setup pages; no CSP or page error", async () => {
    const w = await world();
    const { page, origin } = w;

    // The launch link: the cookie is set HttpOnly, SameSite=Strict, and the link leaves the address bar.
    await page.goto(await w.mint());
    await page.waitForURL(`${origin}/`);
    const cookies = await w.context.cookies(origin);
    expect(cookies).toHaveLength(1);
    expect(cookies[0]).toMatchObject({ httpOnly: true, sameSite: "Strict", domain: "127.0.0.1" });

    // Dashboard.
    expect(await page.locator("h1").textContent()).toBeTruthy();
    expect(await page.locator("main").textContent()).toContain("Recent job runs");
    expect(await page.locator("main strong", { hasText: "openai" }).count()).toBeGreaterThan(0);
    await w.shot("dashboard");

    // Doctor: its rows, the web row among them.
    await page.goto(`${origin}/doctor`);
    await page.locator("h1", { hasText: "Doctor" }).waitFor();
    const rows = page.locator("main table tbody tr");
    expect(await rows.count()).toBeGreaterThan(3);
    expect(await page.locator("main table").textContent()).toContain(
      `listening on http://127.0.0.1:${w.port} (bound to loopback only)`,
    );
    await w.shot("doctor");

    // The setup pages other helpers build: screenshot whichever exist.
    const present: string[] = [];
    for (const path of SETUP_PAGES) {
      const r = await page.goto(`${origin}${path}`);
      if (r?.status() !== 200) continue;
      present.push(path);
      await page.locator("main h1").waitFor();
      await w.shot(`setup-${path.split("/").pop()}`);
    }
    console.info(`setup pages present: ${present.join(", ") || "none"}`);

    // Nothing the pages did broke the CSP or threw.
    expect(w.errors).toEqual([]);
  }, 90_000);

  // These caught a real bug: under `Referrer-Policy: no-referrer` chromium sends `Origin: null` on same-origin form
  // posts, which the Origin gate refused; the pages now send `same-origin`.
  test("logout: the form posts its CSRF token; the next load is refused", async () => {
    const w = await world();
    const { page, origin } = w;
    await page.goto(await w.mint());
    await page.waitForURL(`${origin}/`);
    // Logout: the header's form posts with its CSRF token; the next load is refused.
    await page.goto(`${origin}/`);
    expect(await page.locator('header form[action="/logout"] input[name="csrf"]').getAttribute("value")).toBeTruthy();
    await w.submit(page.locator('header form[action="/logout"] button'), 200);
    expect(await page.locator("body").textContent()).toContain("logged out");
    await w.shot("logged-out");
    const refused = await page.goto(`${origin}/`);
    expect(refused?.status()).toBe(403);
    expect(await page.locator("body").textContent()).toContain("Run `fermix setup --web`");
    await w.shot("refused-after-logout");
    // The refusal is the only console error (chromium reports the 403 load).
    expect(w.errors.filter((e) => !/status of 403/.test(e))).toEqual([]);
  }, 90_000);

  test("Providers: the OpenAI card's key tested against a fake OpenAI and saved with comments kept; Set primary flips the flag both ways", async () => {
    const w = await world();
    const { page, origin } = w;
    await page.goto(await w.mint());
    await page.waitForURL(`${origin}/`);
    expect((await page.goto(`${origin}/setup/providers`))?.status()).toBe(200);
    const before = readFileSync(w.configFile, "utf8");
    await page.locator("#provider-openai a", { hasText: "Configure" }).click();
    await page.waitForURL(/provider=openai/);
    await page.locator('input[name="api_key"]').fill(NEW_KEY);
    await w.shot("providers-openai-form");
    const seen = w.llm.requests.length;
    await w.submit(page.locator("main form button", { hasText: "Test, save" }));
    expect(await page.locator("main p.ok").first().textContent()).toContain("saved");
    await w.shot("providers-openai-saved");
    // The key was probed against the fake with the new key.
    const probes = w.llm.requests.slice(seen);
    expect(probes.some((r) => (r.headers.authorization ?? "").includes(NEW_KEY))).toBe(true);
    const after = readFileSync(w.configFile, "utf8");
    expect(after).not.toBe(before);
    expect(after).toContain(COMMENT);
    expect(after).not.toContain(OLD_KEY);
    // The key never comes back to the browser.
    expect(await page.content()).not.toContain(NEW_KEY);

    // Set primary: the Anthropic card (a fallback) takes the flag without re-entering its key, and gives it back.
    const primaryOf = () => {
      const providers = (parse(readFileSync(w.configFile, "utf8")) as any).fermix_core.providers;
      return Object.keys(providers).filter((id) => providers[id].primary === true);
    };
    expect(await page.locator('[data-status="anthropic"]').textContent()).toBe("Fallback");
    await w.submit(page.locator("#provider-anthropic button", { hasText: "Set primary" }));
    expect(await page.locator('[data-status="anthropic"]').textContent()).toBe("Primary");
    expect(await page.locator('[data-status="openai"]').textContent()).toBe("Fallback");
    expect(primaryOf()).toEqual(["anthropic"]);
    await w.shot("providers-anthropic-primary");
    await w.submit(page.locator("#provider-openai button", { hasText: "Set primary" }));
    expect(await page.locator('[data-status="openai"]').textContent()).toBe("Primary");
    expect(primaryOf()).toEqual(["openai"]);
    expect(readFileSync(w.configFile, "utf8")).toContain(COMMENT);
    expect(w.errors).toEqual([]);
  }, 90_000);

  test("Plugins: install slack, then enable it", async () => {
    const w = await world();
    const { page, origin } = w;
    await page.goto(await w.mint());
    await page.waitForURL(`${origin}/`);
    expect((await page.goto(`${origin}/setup/plugins`))?.status()).toBe(200);
    const slack = page.locator("section.card").filter({ has: page.locator("h2", { hasText: /^slack\b/ }) });
    await w.submit(slack.locator("button", { hasText: "Install" }));
    expect(existsSync(join(w.h.home, "plugins/installed/slack/current/plugin.json"))).toBe(true);
    await w.shot("plugins-slack-installed");
    const enable = slack.locator("button", { hasText: "Enable" });
    if ((await enable.count()) > 0) {
      await w.submit(enable);
    }
    expect(await slack.locator("button", { hasText: "Disable" }).count()).toBe(1);
    expect(readFileSync(w.configFile, "utf8")).toMatch(/enabled = \[[^\]]*"slack"/);
    await w.shot("plugins-slack-enabled");
    expect(w.errors).toEqual([]);
  }, 90_000);

  test("Plugins: the Computer Use card turns computer use on and says what the machine still needs", async () => {
    const w = await world();
    const { page, origin } = w;
    await page.goto(await w.mint());
    await page.waitForURL(`${origin}/`);
    expect((await page.goto(`${origin}/setup/plugins`))?.status()).toBe(200);
    const card = page.locator("#computer-use");
    const status = card.locator('[data-status="computer-use"]');
    expect(await status.textContent()).toBe("Off");
    await w.shot("plugins-computer-use-off");
    await w.submit(card.locator("button", { hasText: "Turn on" }));
    expect(await page.locator("main p.ok").first().textContent()).toContain("computer use: turned on");
    expect(readFileSync(w.configFile, "utf8")).toContain("[fermix_core.computer_use]\nenabled = true\n");
    expect(readFileSync(w.configFile, "utf8")).toContain(COMMENT);
    // The daemon runs with no DISPLAY (the fixture's environment has none): the card says so, and the fix.
    expect(await status.textContent()).toMatch(/^Needs setup: .*DISPLAY/);
    await w.shot("plugins-computer-use-needs-setup");
    await w.submit(card.locator("button", { hasText: "Turn off" }));
    expect(await status.textContent()).toBe("Off");
    expect(readFileSync(w.configFile, "utf8")).toContain("[fermix_core.computer_use]\nenabled = false\n");
    expect(w.errors).toEqual([]);
  }, 90_000);

  test("Personalization: names, time zone and style saved to config.toml with its comments kept", async () => {
    const w = await world();
    const { page, origin } = w;
    await page.goto(await w.mint());
    await page.waitForURL(`${origin}/`);
    await page.goto(`${origin}/setup/personalization`);
    await page.locator('input[name="agent_name"]').fill("Juniper");
    await page.locator('input[name="user_name"]').fill("Ada");
    await page.locator('input[name="timezone"]').fill("Europe/Paris");
    await page.locator('textarea[name="communication_style"]').fill("Short answers, no emoji.");
    await w.submit(page.locator("main form button", { hasText: "Save" }));
    expect(await page.locator("main p.ok").first().textContent()).toContain("saved");
    await w.shot("personalization-saved");
    const after = readFileSync(w.configFile, "utf8");
    expect(after).toContain(COMMENT);
    expect(after).toMatch(/name = "Juniper"/);
    expect(after).toMatch(/user_name = "Ada"/);
    expect(after).toMatch(/timezone = "Europe\/Paris"/);
    expect(after).toMatch(/communication_style = "Short answers, no emoji\."/);
    // The form shows what was saved.
    expect(await page.locator('input[name="user_name"]').inputValue()).toBe("Ada");
    // A bad time zone is refused by name and config.toml stays as it was.
    await page.locator('input[name="timezone"]').fill("Mars/Olympus");
    await page.locator("main form button", { hasText: "Save" }).click();
    await page.waitForURL(/error=/);
    expect(await page.locator("main p.fail").first().textContent()).toContain("Mars/Olympus");
    expect(readFileSync(w.configFile, "utf8")).toBe(after);
    expect(w.errors).toEqual([]);
  }, 90_000);

  test("Channels: the Telegram card's token tested against a fake Bot API, saved to the keychain, then Test", async () => {
    const w = await world();
    const { page, origin } = w;
    await page.goto(await w.mint());
    await page.waitForURL(`${origin}/`);
    await page.goto(`${origin}/setup/channels`);
    const telegram = page.locator("section.card").filter({ has: page.locator("h2", { hasText: /^telegram$/ }) });
    await telegram.locator('input[name="owner_user_id"]').fill("4242");
    await telegram.locator('input[name="bot_token"]').fill(w.telegram.token);
    await w.shot("channels-telegram-form");
    await w.submit(telegram.locator("button", { hasText: "Test and save" }));
    expect(await page.locator("main p.ok").first().textContent()).toContain("telegram saved and tested");
    await w.shot("channels-telegram-saved");
    const after = readFileSync(w.configFile, "utf8");
    expect(after).toContain(COMMENT);
    expect(after).toContain('bot_token = "@keyring"');
    expect(after).not.toContain(w.telegram.token);
    await w.submit(telegram.locator("button", { hasText: /^Test$/ }));
    expect(await page.locator("main p.ok").first().textContent()).toMatch(/^telegram: ok:/);
    expect(await page.content()).not.toContain(w.telegram.token);
    expect(w.errors).toEqual([]);
  }, 90_000);

  test("Usage: the stacked SVG chart and its table under the CSP; the dashboard's spend line", async () => {
    const day = 86_400_000;
    const now = Date.now();
    const call = (at: number, provider: string, costMicros: number | null, tokens: number): SeedCall => ({
      ...{ at, provider, model: `${provider}-model`, costMicros },
      ...{ inputTokens: tokens, outputTokens: Math.round(tokens / 4) },
    });
    const w = await world({
      usage: [
        call(now - 1000, "openai", 420_000, 12_000),
        call(now - 2000, "anthropic", 130_000, 3_000),
        call(now - 2 * day, "openai", 900_000, 30_000),
        call(now - 5 * day, "anthropic", 250_000, 8_000),
        call(now - 5 * day, "xai", null, 2_000),
        call(now - 9 * day, "ollama", 0, 40_000),
      ],
    });
    const { page, origin } = w;
    await page.goto(await w.mint());
    await page.waitForURL(`${origin}/`);
    expect(await page.locator("main section", { hasText: "Spend" }).textContent()).toContain("Today: $0.55");
    await w.shot("dashboard-spend");
    await page.goto(`${origin}/usage`);
    await page.locator("h1", { hasText: "Usage" }).waitFor();
    const costChart = page.locator('svg[aria-label^="Cost per day"]');
    expect(await costChart.isVisible()).toBe(true);
    // One bar per provider and day with spend: openai ×2, anthropic ×2 (xai has no price, ollama costs nothing).
    expect(await costChart.locator("rect").count()).toBe(4);
    expect(await page.locator('svg[aria-label^="Tokens per day"] rect').count()).toBe(6);
    // The SVG is laid out, not blocked: its bars have a size on screen.
    const box = await costChart.locator('rect[data-series="openai"]').first().boundingBox();
    expect(box?.height).toBeGreaterThan(0);
    expect(await page.locator("main table tbody tr").count()).toBe(6);
    expect(await page.locator("main table tbody").textContent()).toContain("unknown");
    await w.shot("usage");
    expect(w.errors).toEqual([]);
  }, 90_000);
});
