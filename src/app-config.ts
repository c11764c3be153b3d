import type { Env } from "./config/env.ts";
import { loadConfig } from "./config/load.ts";
import { fermixPaths, resolveHome } from "./config/paths.ts";
import type { Config } from "./config/schema.ts";
import { validateRouting } from "./providers/routing-config.ts";

/**
 * config.toml as a fermix process starts on it: read, validated, its routing checked. createApp loads it here, and
 * so do the checks made before a running daemon is replaced (`fermix restart`, `fermix check-config` for an
 * upgrade), so they refuse exactly what the next daemon would, with its sentence (ConfigInvalid: file, section, key).
 */
export async function loadAppConfig(file: string): Promise<Config> {
  const config = await loadConfig(file);
  validateRouting(config, file);
  return config;
}

/** Resolves when the daemon of env's FERMIX_HOME would start on its config.toml; throws what it would stop on. */
export async function checkAppConfig(env: Env): Promise<void> {
  await loadAppConfig(fermixPaths(resolveHome(env)).config);
}
