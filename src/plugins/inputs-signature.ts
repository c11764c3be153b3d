import { readdirSync, statSync } from "node:fs";
import { join } from "node:path";
import type { FermixPaths } from "../config/paths.ts";
import type { Config } from "../config/schema.ts";
import { devLocalRoots } from "./dev-local.ts";

/**
 * A signature of the files plugin states are computed from, besides config.toml (which the live config
 * watches): the store's record, auth.json, the secrets folder, and each dev_local folder's manifest. The daemon
 * compares it before each turn — a few stat calls — and computes plugin states again only when it moved.
 * Secrets kept in the OS keychain leave no trace here; the CLI verbs that change them ask the daemon to reload.
 */
export function pluginInputsSignature(paths: FermixPaths, config: Config): string {
  const parts = [stamp(paths.plugins.record), stamp(paths.auth), stamp(paths.secrets)];
  for (const root of devLocalRoots(config)) {
    parts.push(stamp(root));
    for (const name of children(root)) parts.push(stamp(join(root, name, "plugin.json")));
  }
  return parts.join("|");
}

function stamp(path: string): string {
  try {
    const s = statSync(path);
    return `${s.mtimeMs}:${s.size}`;
  } catch {
    return "-";
  }
}

function children(dir: string): string[] {
  try {
    return readdirSync(dir).sort();
  } catch {
    return [];
  }
}
