import { dirname } from "node:path";
import type { Env } from "../config/env.ts";

/** Where a service's PATH looks after the binary's own directory: the standard system dirs, then Homebrew's. */
const SYSTEM_DIRS = ["/usr/local/sbin", "/usr/local/bin", "/usr/sbin", "/usr/bin", "/sbin", "/bin"];
const HOMEBREW_DIRS = ["/opt/homebrew/bin", "/home/linuxbrew/.linuxbrew/bin"];

/**
 * Non-secret settings a shell export would otherwise never carry to a supervised daemon. Nothing else is
 * copied into a unit — above all no API key (reference: "the API key is never written to the unit").
 */
export const SERVICE_ENV_ALLOWLIST = [
  "FERMIX_OPIK_ENABLED",
  "FERMIX_OPIK_BASE_URL",
  "FERMIX_OPIK_PROJECT",
  "FERMIX_TRACE_CONTENT",
] as const;

/**
 * The PATH a unit pins. launchd and systemd start a daemon with a bare PATH that omits Homebrew, so a
 * brew-installed node/python (MCP runtimes) would not be found; the binary's own directory comes first so
 * its siblings (cosign on a Homebrew install) win.
 */
export function pinnedPath(binary: string): string {
  return [...new Set([dirname(binary), ...SYSTEM_DIRS, ...HOMEBREW_DIRS])].join(":");
}

/** The variables a unit sets, in the order it writes them: FERMIX_HOME, PATH, then the allowlist present now. */
export function serviceEnvironment(opts: { binary: string; home: string; env: Env }): Array<[string, string]> {
  const out: Array<[string, string]> = [
    ["FERMIX_HOME", opts.home],
    ["PATH", pinnedPath(opts.binary)],
  ];
  for (const name of SERVICE_ENV_ALLOWLIST) {
    const value = opts.env[name];
    if (value !== undefined && value !== "") out.push([name, value]);
  }
  return out;
}
