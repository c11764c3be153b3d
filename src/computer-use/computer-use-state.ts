import { findBrowser } from "../browser/find-browser.ts";
import type { Config } from "../config/schema.ts";
import type { OpenDriver } from "./driver-contract.ts";
import { driverReadiness } from "./readiness.ts";

/**
 * Computer use as the owner sees it in `fermix doctor`, the setup page's Computer Use card and `fermix
 * capabilities`: off in config.toml, or on and either ready to drive the display or not, with the reason and the fix.
 * One function so the three never disagree.
 */
export type ComputerUseState =
  | { state: "off" }
  | {
      state: "ready";
      display: string;
      width: number;
      height: number;
      /** Browser mode: the Chromium the browser tool drives (display is then "browser"; no X display is needed). */
      browser?: string;
    }
  | { state: "unavailable"; reason: string; fix: string };

export type ComputerUseStateDeps = {
  env: Record<string, string | undefined>;
  platform?: string;
  /** The driver to try (tests hand one in); absent: this build's own. */
  open?: OpenDriver;
};

export async function computerUseState(
  config: Config | undefined,
  deps: ComputerUseStateDeps,
): Promise<ComputerUseState> {
  const section = config?.fermix_core?.computer_use;
  if (section?.enabled !== true) return { state: "off" };
  if (section.mode === "browser") return browserModeState(config);
  return driverReadiness({
    env: deps.env,
    ...(section.display !== undefined ? { display: section.display } : {}),
    ...(deps.platform !== undefined ? { platform: deps.platform } : {}),
    ...(deps.open ? { open: deps.open } : {}),
  });
}

/** One line for a person: "ready (display :99, 1280×800 screen)", or the reason it is not. */
export function describeComputerUse(s: ComputerUseState): string {
  if (s.state === "off") return "off";
  if (s.state === "ready" && s.browser) return `ready (browser mode: the browser tool's page, Chromium ${s.browser})`;
  if (s.state === "ready") return `ready (display ${s.display}, ${s.width}×${s.height} screen)`;
  return s.reason;
}

/** Browser mode drives the browser tool's page: ready when a Chromium is found, whatever the X display. */
function browserModeState(config: Config | undefined): ComputerUseState {
  const found = findBrowser(config?.fermix_core?.tools?.browser?.executable);
  if (!found.ok) {
    return {
      state: "unavailable",
      reason: `browser mode needs a Chromium: ${found.reason}`,
      fix: 'install Chromium (Debian/Ubuntu: sudo apt install chromium), or set mode = "host" in [fermix_core.computer_use]',
    };
  }
  const s = config?.fermix_core?.computer_use;
  return {
    state: "ready",
    display: "browser",
    width: s?.display_width_px ?? 1280,
    height: s?.display_height_px ?? 800,
    browser: found.executable,
  };
}
