import { mkdirSync, readlinkSync } from "node:fs";
import { join } from "node:path";
import type { BrowserContext, Dialog, Page } from "playwright-core";
import { defineError } from "../error.ts";
import type { Log } from "../observability/log.ts";
import type { UrlGuard } from "./url-guard.ts";

export const BrowserUnavailable = defineError<{ reason: string }>("browser_unavailable");

/** The facts' bounds: tabs per browser, how long a launch may take, the console lines kept per tab. */
export const MAX_TABS = 10;
const LAUNCH_TIMEOUT_MS = 15_000;
const CONSOLE_LINES = 200;

export type BrowserSettings = {
  executable: string;
  headless: boolean;
  idleMs: number;
  /** The persistent profile (cookies, logins) under $FERMIX_HOME/browser/. */
  profileDir: string;
  downloadsDir: string;
  guard: UrlGuard;
};

export type Tab = { id: string; page: Page };
export type PendingDialog = { type: string; message: string };

export type BrowserSession = {
  running(): boolean;
  /** The live context, launched on first use; every call pushes the idle shutdown back. */
  context(): Promise<BrowserContext>;
  tabs(): Tab[];
  active(): Tab | undefined;
  focus(id: string): Tab | undefined;
  open(): Promise<Tab>;
  close(id: string): Promise<boolean>;
  consoleOf(id: string): string[];
  /** The dialog a tab is showing (alert, confirm, prompt), waiting for `answerDialog`. */
  dialogOf(id: string): PendingDialog | undefined;
  answerDialog(id: string, accept: boolean, text?: string): Promise<boolean>;
  /** Why the last request of a tab was refused by the guard, for the navigation's error. */
  lastRefusal(id: string): string | undefined;
  /** The Chromium's pid (from the profile's SingletonLock), for the reap record. */
  pid(): number | undefined;
  stop(): Promise<void>;
};

/**
 * One Chromium for the process, launched through playwright-core on first use with a persistent profile, and shut
 * down after `idleMs` without a browser call (and with the daemon). playwright-core is imported here only, when the
 * browser is first used, so no other path pays for it. Every request the pages make goes through the guard.
 */
export function createBrowserSession(deps: {
  settings: () => BrowserSettings;
  log: Log;
  onLaunch?: (pid: number | undefined) => void;
  onStop?: (pid: number | undefined) => void;
}): BrowserSession {
  let launching: Promise<BrowserContext> | undefined;
  let ctx: BrowserContext | undefined;
  let settings: BrowserSettings | undefined;
  let idle: ReturnType<typeof setTimeout> | undefined;
  let activeId: string | undefined;
  let nextTab = 1;
  let chromiumPid: number | undefined;
  const ids = new WeakMap<Page, string>();
  const tabs = new Map<string, Page>();
  const consoles = new Map<string, string[]>();
  const dialogs = new Map<string, Dialog>();
  const refusals = new Map<string, string>();

  const touch = () => {
    if (idle) clearTimeout(idle);
    if (!settings) return;
    idle = setTimeout(() => {
      deps.log.info(`browser idle for ${Math.round(settings!.idleMs / 1000)} s: shutting it down`);
      void stop();
    }, settings.idleMs);
    // An idle browser must not keep a one-shot CLI alive.
    (idle as { unref?: () => void }).unref?.();
  };

  const track = (page: Page): Tab => {
    const known = ids.get(page);
    if (known) return { id: known, page };
    const id = `t${nextTab++}`;
    ids.set(page, id);
    tabs.set(id, page);
    consoles.set(id, []);
    activeId = id;
    page.on("console", (m) => {
      const lines = consoles.get(id);
      if (!lines) return;
      lines.push(`[${m.type()}] ${m.text()}`.slice(0, 2000));
      if (lines.length > CONSOLE_LINES) lines.shift();
    });
    page.on("pageerror", (e) => consoles.get(id)?.push(`[pageerror] ${e.message}`.slice(0, 2000)));
    page.on("dialog", (d) => {
      dialogs.set(id, d);
    });
    page.on("close", () => {
      tabs.delete(id);
      consoles.delete(id);
      dialogs.delete(id);
      refusals.delete(id);
      if (activeId === id) activeId = [...tabs.keys()].at(-1);
    });
    return { id, page };
  };

  const launch = async (): Promise<BrowserContext> => {
    settings = deps.settings();
    mkdirSync(settings.profileDir, { recursive: true, mode: 0o700 });
    mkdirSync(settings.downloadsDir, { recursive: true, mode: 0o700 });
    const { chromium } = await import("playwright-core");
    const s = settings;
    const context = await chromium
      .launchPersistentContext(s.profileDir, {
        executablePath: s.executable,
        headless: s.headless,
        timeout: LAUNCH_TIMEOUT_MS,
        acceptDownloads: true,
        downloadsPath: s.downloadsDir,
        // A service worker could fetch behind the guard's back.
        serviceWorkers: "block",
        args: ["--disable-gpu", "--no-first-run", "--disable-background-networking", "--disable-sync", "--no-sandbox"],
      })
      .catch((err: Error) => {
        throw BrowserUnavailable(`the browser did not start: ${err.message.split("\n")[0]}`, { reason: err.message });
      });
    await context.route("**/*", async (route) => {
      const request = route.request();
      const verdict = await s.guard(request.url());
      if (verdict.ok) return route.continue();
      const page = request.frame()?.page();
      const id = page ? ids.get(page) : undefined;
      if (id) refusals.set(id, verdict.reason);
      deps.log.warn(`browser: ${verdict.reason}`);
      return route.abort("blockedbyclient");
    });
    context.on("page", (page) => track(page));
    for (const page of context.pages()) track(page);
    context.on("close", () => {
      if (ctx === context) forget();
    });
    chromiumPid = lockPid(s.profileDir);
    deps.onLaunch?.(chromiumPid);
    deps.log.info(`browser started (${s.headless ? "headless" : "visible"}, ${s.executable})`);
    return context;
  };

  const forget = () => {
    const pid = chromiumPid;
    ctx = undefined;
    launching = undefined;
    chromiumPid = undefined;
    tabs.clear();
    consoles.clear();
    dialogs.clear();
    refusals.clear();
    activeId = undefined;
    if (idle) clearTimeout(idle);
    idle = undefined;
    deps.onStop?.(pid);
  };

  const context = async (): Promise<BrowserContext> => {
    if (ctx) {
      touch();
      return ctx;
    }
    launching ??= launch().then(
      (c) => {
        ctx = c;
        return c;
      },
      (err) => {
        launching = undefined;
        throw err;
      },
    );
    const c = await launching;
    touch();
    return c;
  };

  const stop = async (): Promise<void> => {
    const c = ctx ?? (launching ? await launching.catch(() => undefined) : undefined);
    if (!c) return;
    forget();
    await c.close().catch((err: Error) => deps.log.warn(`browser: closing failed: ${err.message}`));
  };

  return {
    running: () => ctx !== undefined,
    context,
    tabs: () => [...tabs].map(([id, page]) => ({ id, page })),
    active: () => (activeId ? { id: activeId, page: tabs.get(activeId)! } : undefined),
    focus(id) {
      const page = tabs.get(id);
      if (!page) return undefined;
      activeId = id;
      return { id, page };
    },
    async open() {
      const c = await context();
      // The oldest tab other than the active one makes room (the facts' 10-tab bound).
      if (tabs.size >= MAX_TABS) {
        const oldest = [...tabs.keys()].find((id) => id !== activeId);
        if (oldest) await tabs.get(oldest)?.close();
      }
      // A fresh profile opens with one blank tab: use it rather than leave it lying around.
      const blank = [...tabs].find(([, p]) => p.url() === "about:blank");
      if (blank) {
        activeId = blank[0];
        return { id: blank[0], page: blank[1] };
      }
      return track(await c.newPage());
    },
    async close(id) {
      const page = tabs.get(id);
      if (!page) return false;
      await page.close();
      return true;
    },
    consoleOf: (id) => [...(consoles.get(id) ?? [])],
    dialogOf(id) {
      const d = dialogs.get(id);
      return d ? { type: d.type(), message: d.message() } : undefined;
    },
    async answerDialog(id, accept, text) {
      const d = dialogs.get(id);
      if (!d) return false;
      dialogs.delete(id);
      if (accept) await d.accept(text);
      else await d.dismiss();
      return true;
    },
    lastRefusal: (id) => refusals.get(id),
    pid: () => chromiumPid,
    stop,
  };
}

/** Chromium's SingletonLock is a symlink to "<host>-<pid>": the browser's pid without reaching into playwright. */
function lockPid(profileDir: string): number | undefined {
  try {
    const pid = Number(readlinkSync(join(profileDir, "SingletonLock")).split("-").at(-1));
    return Number.isInteger(pid) && pid > 1 ? pid : undefined;
  } catch {
    return undefined;
  }
}
