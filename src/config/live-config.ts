import { readFileSync, statSync } from "node:fs";
import type { Log } from "../observability/log.ts";
import { parseConfig } from "./load.ts";
import type { Config } from "./schema.ts";

/**
 * config.toml as it is now, re-read when the file changes: the parts that apply without a restart
 * (sandbox roots, enabled plugins, plugin settings) follow it from the next turn. A file that became
 * invalid keeps the last good config, with a warning.
 */
export function createLiveConfig(file: string, initial: Config, log: Log): () => Config {
  let mtime = mtimeOf(file);
  let current = initial;
  return () => {
    const now = mtimeOf(file);
    if (now === mtime) return current;
    mtime = now;
    try {
      current = now === 0 ? {} : parseConfig(readFileSync(file, "utf8"), file);
    } catch (err) {
      log.warn(`config.toml changed but is not valid; keeping the previous settings: ${(err as Error).message}`);
    }
    return current;
  };
}

function mtimeOf(file: string): number {
  try {
    return statSync(file).mtimeMs;
  } catch {
    return 0;
  }
}
