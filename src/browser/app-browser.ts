import type { FermixPaths } from "../config/paths.ts";
import type { Config } from "../config/schema.ts";
import type { Log } from "../observability/log.ts";
import { recordChildGroups } from "../plugins/mcp-rail/child-groups.ts";
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
  const record = () => recordChildGroups({ dir: deps.paths.children, onError: (e) => deps.log.warn(e.message) });
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
      if (pid) record().add(pid, "chromium (browser tool)");
    },
    onStop: (pid) => {
      if (pid) record().remove(pid);
    },
  });
}
