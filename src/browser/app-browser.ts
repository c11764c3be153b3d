import type { FermixPaths } from "../config/paths.ts";
import type { Config } from "../config/schema.ts";
import type { Log } from "../observability/log.ts";
import { type BrowserSession, BrowserUnavailable, createBrowserSession } from "./browser-session.ts";
import { findBrowser } from "./find-browser.ts";
import { createUrlGuard } from "./url-guard.ts";

const IDLE_MINUTES = 15;

/**
 * The browser session as the app runs it: settings read from config.toml when Chromium starts (a changed
 * executable or idle time applies to the next launch), and the Chromium recorded with the process's child groups,
 * so the next daemon reaps it if this process is SIGKILLed (Chromium normally exits by itself once its pipe closes).
 */
export function createAppBrowser(deps: { paths: FermixPaths; config: () => Config; log: Log }): BrowserSession {
  const warn = (e: Error) => deps.log.warn(`browser: the child-group record failed: ${e.message}`);
  // The child-group record loads with the first Chromium, not with every turn that offers the browser.
  const record = async () =>
    (await import("../plugins/mcp-rail/child-groups.ts")).recordChildGroups({
      dir: deps.paths.children,
      onError: (e) => deps.log.warn(e.message),
    });
  return createBrowserSession({
    log: deps.log,
    settings() {
      const block = deps.config().fermix_core?.tools?.browser;
      const found = findBrowser(block?.executable);
      if (!found.ok) throw BrowserUnavailable(found.reason, { reason: found.reason });
      return {
        executable: found.executable,
        headless: block?.headless ?? true,
        idleMs: (block?.idle_minutes ?? IDLE_MINUTES) * 60_000,
        profileDir: deps.paths.browser.profile,
        downloadsDir: deps.paths.browser.downloads,
        guard: createUrlGuard({ allowLoopback: block?.allow_loopback === true }),
      };
    },
    onLaunch: (pid) => {
      if (pid) record().then((r) => r.add(pid, "chromium (browser tool)"), warn);
    },
    onStop: (pid) => {
      if (pid) record().then((r) => r.remove(pid), warn);
    },
  });
}
