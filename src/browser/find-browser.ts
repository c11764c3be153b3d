import { existsSync } from "node:fs";
import { which } from "../runtime/processes.ts";

/** Names a Chromium-family browser goes by on PATH, most specific first. */
const ON_PATH = ["chromium", "chromium-browser", "google-chrome", "google-chrome-stable", "chrome", "microsoft-edge"];

/** Where installers put one when it is not on PATH (macOS app bundles, distro and snap paths). */
const USUAL_PATHS = [
  "/usr/bin/chromium",
  "/usr/bin/chromium-browser",
  "/snap/bin/chromium",
  "/usr/bin/google-chrome",
  "/opt/google/chrome/chrome",
  "/Applications/Google Chrome.app/Contents/MacOS/Google Chrome",
  "/Applications/Chromium.app/Contents/MacOS/Chromium",
  "/Applications/Microsoft Edge.app/Contents/MacOS/Microsoft Edge",
];

export type BrowserLookup = { ok: true; executable: string } | { ok: false; reason: string };

/**
 * The Chromium or Chrome the browser tool drives: [fermix_core.tools.browser] executable when set (it must
 * exist: a typo is the owner's to fix, not a reason to pick another browser), else the first on PATH, else the
 * usual install paths.
 */
export function findBrowser(
  configured: string | undefined,
  deps: { PATH?: string; exists?: (p: string) => boolean } = {},
): BrowserLookup {
  const exists = deps.exists ?? existsSync;
  if (configured) {
    return exists(configured)
      ? { ok: true, executable: configured }
      : {
          ok: false,
          reason: `[fermix_core.tools.browser] executable = "${configured}" does not exist; fix the path in config.toml or remove the key to look on PATH`,
        };
  }
  for (const name of ON_PATH) {
    const found = which(name, { PATH: deps.PATH });
    if (found) return { ok: true, executable: found };
  }
  const usual = USUAL_PATHS.find((p) => exists(p));
  if (usual) return { ok: true, executable: usual };
  return {
    ok: false,
    reason:
      "no Chromium or Chrome found (looked on PATH and the usual install paths): install one (Debian/Ubuntu: sudo apt install chromium; macOS: Google Chrome) or set [fermix_core.tools.browser] executable in config.toml",
  };
}
