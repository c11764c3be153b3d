import { join } from "node:path";
import { defineError } from "../../error.ts";
import { which } from "../../runtime/processes.ts";
import { systemPath } from "../../sandbox/child-env.ts";
import { CONFIG_KEY, type Manifest } from "../manifest/schema.ts";
import type { ProcessSpec } from "./process-transport.ts";

export const McpRuntimeMissing = defineError<{ plugin: string; command: string }>("missing_host_runtime");

/** What the supervisor is given about a plugin: where it lives, its manifest, its config and the daemon's env. */
export type McpPlugin = {
  name: string;
  dir: string;
  manifest: Manifest;
  configValues: Record<string, string | boolean>;
  /** The daemon's environment; only PATH, HOME, LANG and the manifest's pass_env names are read from it. */
  env: Record<string, string | undefined>;
};

const VENDOR_TARGET: Record<string, string> = {
  "darwin-arm64": "macos-aarch64",
  "darwin-x64": "macos-x86_64",
  "linux-x64": "linux-x86_64",
  "linux-arm64": "linux-aarch64",
};

/** The manifest target (`bin/<target>/`) of a vendored binary for this host, if fermix supports it. */
export function vendorTarget(platform: string = process.platform, arch: string = process.arch): string | undefined {
  return VENDOR_TARGET[`${platform}-${arch}`];
}

/**
 * The environment an MCP server gets. Built from nothing rather than filtered from the daemon's, whose
 * environment holds provider keys: a server sees the plugin's own config values and exactly the names its
 * manifest lists in pass_env. Booleans arrive as "true" / "false".
 */
export function serverEnv(plugin: McpPlugin): Record<string, string> {
  const from = plugin.env;
  const env: Record<string, string> = {
    PATH: from.PATH || systemPath(process.platform),
    LANG: from.LANG || "C.UTF-8",
  };
  if (from.HOME) env.HOME = from.HOME;
  // Only keys the manifest declares: a stray value in config.toml is not the plugin's to read.
  const declared = new Set(plugin.manifest.config.map((c) => c.key));
  for (const [key, value] of Object.entries(plugin.configValues)) {
    if (declared.has(key) && CONFIG_KEY.test(key)) env[key] = String(value);
  }
  for (const name of plugin.manifest.runtime?.pass_env ?? []) {
    const value = from[name];
    if (value !== undefined) env[name] = value;
  }
  return env;
}

/**
 * How to run the plugin's server: its command resolved to a file (vendored under `bin/<target>/`, else on the
 * server's PATH), its args, cwd = the plugin root. Throws McpRuntimeMissing when there is nothing to run,
 * which no retry would fix.
 */
export function processSpec(plugin: McpPlugin): ProcessSpec {
  const runtime = plugin.manifest.runtime;
  if (!runtime) throw McpRuntimeMissing(`${plugin.name} declares no runtime`, { plugin: plugin.name, command: "" });
  const env = serverEnv(plugin);
  let command: string | null;
  if (runtime.vendored) {
    const target = vendorTarget();
    const file = target ? join(plugin.dir, "bin", target, runtime.command) : undefined;
    command = file && which(file) ? file : null;
  } else {
    command = which(runtime.command, { PATH: env.PATH ?? "" });
  }
  if (!command) {
    const where = runtime.vendored ? `bin/${vendorTarget() ?? "<unsupported host>"}/` : "PATH";
    throw McpRuntimeMissing(`${plugin.name}: ${runtime.command} is not on ${where}`, {
      plugin: plugin.name,
      command: runtime.command,
    });
  }
  return { command, args: [...runtime.args], cwd: plugin.dir, env };
}
