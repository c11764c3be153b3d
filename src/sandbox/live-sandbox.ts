import { readFileSync, statSync } from "node:fs";
import { parseConfig } from "../config/load.ts";
import type { Config } from "../config/schema.ts";
import type { Log } from "../observability/log.ts";
import { createSandbox } from "./create-sandbox.ts";
import type { Sandbox } from "./types.ts";

/**
 * The sandbox as config.toml's [sandbox] says now: grants from `fermix grant` or /confirm apply on the
 * next turn without a restart. A config that became invalid keeps the last good sandbox, with a warning.
 */
export function createLiveSandbox(opts: {
  configFile: string;
  initial: Config;
  userHome: string;
  fermixHome: string;
  log: Log;
}): () => Sandbox {
  const build = (config: Config) =>
    createSandbox({ userHome: opts.userHome, fermixHome: opts.fermixHome, config: config.sandbox });
  let mtime = mtimeOf(opts.configFile);
  let sandbox = build(opts.initial);
  return () => {
    const now = mtimeOf(opts.configFile);
    if (now === mtime) return sandbox;
    mtime = now;
    try {
      sandbox = build(parseConfig(readFileSync(opts.configFile, "utf8"), opts.configFile));
    } catch (err) {
      opts.log.warn(`config.toml changed but is not valid; keeping the previous sandbox: ${(err as Error).message}`);
    }
    return sandbox;
  };
}

function mtimeOf(file: string): number {
  try {
    return statSync(file).mtimeMs;
  } catch {
    return 0;
  }
}
