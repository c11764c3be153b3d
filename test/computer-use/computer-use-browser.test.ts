import { afterAll, describe, expect, test } from "bun:test";
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import * as v from "valibot";
import { type BrowserSession, createBrowserSession } from "../../src/browser/browser-session.ts";
import { createUrlGuard } from "../../src/browser/url-guard.ts";
import { createComputerUseTool } from "../../src/capabilities/builtins/computer-use.ts";
import type { ToolContext, ToolResult } from "../../src/capabilities/tool.ts";
import { createActionApprovals } from "../../src/computer-use/action-approvals.ts";
import { openBrowserDriver, sessionOf } from "../../src/computer-use/browser-driver.ts";
import { createComputerUseSessions } from "../../src/computer-use/session.ts";
import { type ComputerUseSettings, computerUseSettings } from "../../src/computer-use/settings.ts";
import type { Config } from "../../src/config/schema.ts";
import { createLog } from "../../src/observability/log.ts";
import type { SandboxMode } from "../../src/sandbox/types.ts";
import { pngSize } from "../fake/desktop-driver.ts";

/*
 * [fermix_core.computer_use] mode = "browser" against Debian's chromium (headless): the computer_use tool's
 * screenshots and input go to the browser tool's page, not an X display (no DISPLAY is set here at all). A form
 * served on loopback is filled by clicking where the screenshot shows the input, typing and pressing Return; the
 * server records what was submitted. allowed_domains and the browser's address floor refuse input by the page's
 * address. Without chromium the file is skipped (.ci/run installs it).
 */

const CHROMIUM = ["/usr/bin/chromium", Bun.which("chromium")].find((p): p is string => !!p && existsSync(p));
if (!CHROMIUM) console.warn("test/computer-use/computer-use-browser.test.ts skipped: no chromium");

const submitted: string[] = [];
let submittedNow: (() => void) | undefined;
// The input sits at a fixed place in the viewport, so the test knows where the screenshot shows it.
const FORM = `<!doctype html><title>Notes</title><style>body{margin:0}
#q{position:absolute;left:100px;top:100px;width:300px;height:40px;font-size:20px}
#go{position:absolute;left:100px;top:200px;width:120px;height:40px}</style>
<form method="post" action="/submit"><input id="q" name="q" autocomplete="off"><button id="go">Save</button></form>`;
const site = Bun.serve({
  hostname: "127.0.0.1",
  port: 0,
  async fetch(req) {
    const url = new URL(req.url);
    if (url.pathname === "/") return new Response(FORM, { headers: { "content-type": "text/html" } });
    if (url.pathname === "/submit" && req.method === "POST") {
      submitted.push(new URLSearchParams(await req.text()).get("q") ?? "");
      submittedNow?.();
      return new Response("<!doctype html><title>Saved</title><p>saved</p>", {
        headers: { "content-type": "text/html" },
      });
    }
    return new Response("not found", { status: 404 });
  },
});
const SITE = `http://127.0.0.1:${site.port}/`;

const profileRoot = mkdtempSync(join(tmpdir(), "fx-cub-"));
const log = createLog({ level: "error" });
let profiles = 0;
const sessionFor = (allowLoopback: boolean): BrowserSession =>
  createBrowserSession({
    log,
    settings: () => ({
      executable: CHROMIUM!,
      headless: true,
      idleMs: 600_000,
      profileDir: join(profileRoot, `profile-${++profiles}`),
      downloadsDir: join(profileRoot, "downloads"),
      guard: createUrlGuard({ allowLoopback }),
    }),
  });
const sessions: BrowserSession[] = [];
afterAll(async () => {
  for (const s of sessions) await s.stop();
  site.stop(true);
  rmSync(profileRoot, { recursive: true, force: true });
});

async function world(opts: { settings?: Partial<ComputerUseSettings>; mode?: SandboxMode; allowLoopback?: boolean }) {
  const allowLoopback = opts.allowLoopback !== false;
  const browser = sessionFor(allowLoopback);
  sessions.push(browser);
  const config = {
    fermix_core: {
      computer_use: { enabled: true, mode: "browser" },
      tools: { browser: { allow_loopback: allowLoopback } },
    },
  } as Config;
  const settings = { ...computerUseSettings(config), confirmConsequential: false, ...opts.settings };
  const tool = createComputerUseTool({
    driver: (ctx) => openBrowserDriver(sessionOf(ctx.browser)),
    settings,
    sessions: createComputerUseSessions(),
    approvals: createActionApprovals(),
    sleep: async () => {},
  });
  const ctx = {
    caller: { trust: "operator", local: false, attended: true },
    conversation: { channel: "cli", chat: "local" },
    signal: new AbortController().signal,
    now: Date.now,
    notify() {},
    sandbox: { mode: opts.mode ?? "standard" },
    config,
    browser: () => browser,
  } as unknown as ToolContext;
  const call = async (args: Record<string, unknown>): Promise<ToolResult> => {
    const result = await tool.execute(v.parse(tool.parameters, args), ctx);
    return typeof result === "string" ? { content: result } : result;
  };
  // The page the browser tool would have opened: the computer_use tool works on whatever tab is in front.
  const page = (await browser.open()).page;
  await page.goto(SITE);
  return { browser, page, call, settings };
}

describe.skipIf(!CHROMIUM)("computer_use in browser mode (real Chromium)", () => {
  test("a screenshot of the page at the configured size; click, type and Return submit the form", async () => {
    const { call, page } = await world({ settings: { width: 640, height: 360 } });
    const viewport = page.viewportSize()!;
    const shot = await call({ action: "screenshot" });
    expect(shot.isError).toBeUndefined();
    expect(pngSize(shot.images![0]!.data)).toEqual({ width: 640, height: 360 });

    // The input's middle (250, 120 in the viewport's CSS pixels) on the 640×360 grid the model sees.
    const grid = (x: number, y: number) => [
      Math.round((x * 640) / viewport.width),
      Math.round((y * 360) / viewport.height),
    ];
    const clicked = await call({ action: "left_click", coordinate: grid(250, 120) });
    expect(clicked.isError).toBeUndefined();
    expect(clicked.images).toHaveLength(1);
    expect(await page.evaluate(() => (globalThis as any).document.activeElement?.id)).toBe("q");

    expect((await call({ action: "type", text: "hello" })).isError).toBeUndefined();
    expect(await page.inputValue("#q")).toBe("hello");
    const got = new Promise<void>((resolve) => {
      submittedNow = resolve;
    });
    const pressed = await call({ action: "key", text: "Return" });
    expect(pressed.isError).toBeUndefined();
    expect(pressed.trace).toMatchObject({ action: "key", keys: "Return" });
    await got;
    expect(submitted.at(-1)).toBe("hello");
  }, 60_000);

  test("xdotool spellings reach the page as playwright keys; zoom crops the page", async () => {
    const { call, page } = await world({ settings: { screenshotAfter: false } });
    await page.focus("#q");
    await call({ action: "type", text: "abc" });
    expect((await call({ action: "key", text: "BackSpace" })).isError).toBeUndefined();
    expect(await page.inputValue("#q")).toBe("ab");
    expect((await call({ action: "key", text: "ctrl+a" })).isError).toBeUndefined();
    await call({ action: "type", text: "z" });
    expect(await page.inputValue("#q")).toBe("z");
    const bad = await call({ action: "key", text: "ctrl+Hyperdrive" });
    expect(bad.isError).toBe(true);
    expect(bad.content).toContain('"Hyperdrive" is no key name');
    const zoom = await call({ action: "zoom", region: [0, 0, 320, 200] });
    expect(zoom.isError).toBeUndefined();
    // Magnified to fill the grid's width, its shape kept.
    expect(pngSize(zoom.images![0]!.data).width).toBe(1280);
  }, 60_000);

  test("allowed_domains refuses input on a page of another domain, naming the domain and the key", async () => {
    const { call, page } = await world({ settings: { allowedDomains: ["example.org"] } });
    const refused = await call({ action: "left_click", coordinate: [300, 150] });
    expect(refused.isError).toBe(true);
    expect(refused.content).toContain("127.0.0.1");
    expect(refused.content).toContain("allowed_domains");
    expect(refused.content).toContain("example.org");
    expect(refused.trace).toMatchObject({ action: "left_click", refused: true, url: SITE });
    const typed = await call({ action: "type", text: "hello" });
    expect(typed.isError).toBe(true);
    expect(await page.inputValue("#q")).toBe("");
    // Looking is not input: the screenshot still works.
    expect((await call({ action: "screenshot" })).isError).toBeUndefined();
  }, 60_000);

  test("a loopback page without allow_loopback: input refused by the address floor, whatever the posture", async () => {
    const { browser } = await world({ allowLoopback: true, mode: "open" });
    // The page is open (loaded while loopback was allowed); the tool's config now says it is not.
    const strictConfig = { fermix_core: { tools: { browser: { allow_loopback: false } } } } as Config;
    const tool = createComputerUseTool({
      driver: () => openBrowserDriver(browser),
      settings: { ...computerUseSettings({ fermix_core: { computer_use: { mode: "browser" } } } as Config) },
      sessions: createComputerUseSessions(),
      approvals: createActionApprovals(),
    });
    const ctx = {
      conversation: { channel: "cli", chat: "local" },
      signal: new AbortController().signal,
      notify() {},
      sandbox: { mode: "open" },
      config: strictConfig,
    } as unknown as ToolContext;
    const refused = (await tool.execute(v.parse(tool.parameters, { action: "type", text: "x" }), ctx)) as ToolResult;
    expect(refused.isError).toBe(true);
    expect(refused.content).toContain("allow_loopback");
  }, 60_000);

  test("strict posture: screenshots yes, input no", async () => {
    const { call } = await world({ mode: "strict" });
    expect((await call({ action: "screenshot" })).isError).toBeUndefined();
    const refused = await call({ action: "left_click", coordinate: [10, 10] });
    expect(refused.isError).toBe(true);
    expect(refused.content).toContain('"strict"');
  }, 60_000);
});
