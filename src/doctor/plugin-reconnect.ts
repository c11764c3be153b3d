import { existsSync, readFileSync } from "node:fs";
import type { FermixPaths } from "../config/paths.ts";
import type { Config } from "../config/schema.ts";
import { createTokenStore } from "../plugins/oauth/token-store.ts";

/**
 * Enabled plugins whose OAuth sign-in is gone: the provider refused its refresh token, or it is well past
 * expiry with nothing to refresh it (the token store's `invalidated` state, the readiness ladder's
 * reauthorization_required). Reads only config.toml and auth.json — no catalog, manifest or keyring — so
 * `fermix status` can afford it.
 */
export function pluginsNeedingReconnect(config: Config, authFile: string, now: Date): string[] {
  // enabledPlugins() of plugins/settings, without loading that module's TOML editor on the status path.
  const enabled = config.fermix_core?.plugins?.enabled ?? [];
  if (!enabled.length || !existsSync(authFile)) return [];
  const tokens = createTokenStore(authFile);
  return enabled.filter((name) => tokens.state(name, now) === "invalidated");
}

/**
 * The same from a FERMIX_HOME, cheapest first: nothing at all while auth.json does not exist, and
 * config.toml is loaded (and its parser imported) only when some stored sign-in is gone.
 */
export async function pluginsNeedingReconnectIn(paths: FermixPaths, now: Date): Promise<string[]> {
  if (!existsSync(paths.auth)) return [];
  const tokens = createTokenStore(paths.auth);
  const names = Object.keys((JSON.parse(readFileSync(paths.auth, "utf8")) as { plugins?: object }).plugins ?? {});
  if (!names.some((name) => tokens.state(name, now) === "invalidated")) return [];
  const { loadConfig } = await import("../config/load.ts");
  return pluginsNeedingReconnect(await loadConfig(paths.config), paths.auth, now);
}
