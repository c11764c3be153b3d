import { homedir } from "node:os";
import { isAbsolute, join, resolve } from "node:path";
import type { Env } from "./env.ts";

/** The only module that knows FERMIX_HOME's layout. */
export type FermixPaths = {
  home: string;
  config: string;
  db: string;
  socket: string;
  lock: string;
  logs: string;
  logFile: string;
  traces: string;
  secrets: string;
};

export function resolveHome(env: Env): string {
  const explicit = env.FERMIX_HOME;
  if (explicit) return isAbsolute(explicit) ? explicit : resolve(explicit);
  return join(env.HOME || homedir(), ".fermix");
}

export function fermixPaths(home: string): FermixPaths {
  return {
    home,
    config: join(home, "config.toml"),
    db: join(home, "memory.db"),
    socket: join(home, "daemon.sock"),
    lock: join(home, "daemon.lock"),
    logs: join(home, "logs"),
    logFile: join(home, "logs", "fermix.log"),
    traces: join(home, "traces"),
    secrets: join(home, "secrets"),
  };
}
