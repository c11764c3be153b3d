import type { Config } from "../config/schema.ts";

/** [fermix_core.computer_use] with its defaults filled in (the facts' numbers). */
export type ComputerUseSettings = {
  enabled: boolean;
  mode: "browser" | "host";
  /** ":N" from `display`, or undefined: the daemon's own $DISPLAY. */
  display: string | undefined;
  width: number;
  height: number;
  allowedApps: readonly string[];
  allowedDomains: readonly string[];
  confirmConsequential: boolean;
  screenshotAfter: boolean;
  maxActions: number;
  maxRetainedScreenshots: number;
  approvalTimeoutMs: number;
};

export function computerUseSettings(config: Config | undefined): ComputerUseSettings {
  const s = config?.fermix_core?.computer_use;
  return {
    enabled: s?.enabled === true,
    mode: s?.mode ?? "host",
    display: s?.display !== undefined ? `:${s.display}` : undefined,
    width: s?.display_width_px ?? 1280,
    height: s?.display_height_px ?? 800,
    allowedApps: s?.allowed_apps ?? [],
    allowedDomains: s?.allowed_domains ?? [],
    confirmConsequential: s?.confirm_consequential !== false,
    screenshotAfter: s?.screenshot_after !== false,
    maxActions: s?.max_actions ?? 40,
    maxRetainedScreenshots: s?.max_retained_screenshots ?? 3,
    approvalTimeoutMs: s?.approval_timeout_ms ?? 300_000,
  };
}
