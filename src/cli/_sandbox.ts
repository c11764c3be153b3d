import { homedir } from "node:os";
import { processEnv } from "../config/env.ts";
import { loadConfig } from "../config/load.ts";
import { fermixPaths, resolveHome } from "../config/paths.ts";
import { createSandbox } from "../sandbox/create-sandbox.ts";
import type { SandboxCaller } from "../sandbox/types.ts";

/** The sandbox exactly as the daemon builds it from config.toml, for the verbs that inspect or edit it. */
export async function localSandbox() {
  const env = processEnv();
  const paths = fermixPaths(resolveHome(env));
  const config = await loadConfig(paths.config);
  const userHome = env.HOME || homedir();
  const sandbox = createSandbox({ userHome, fermixHome: paths.home, config: config.sandbox });
  // The CLI asks as the owner, from this shell's directory.
  const caller: SandboxCaller = { trust: "operator", local: true, cwd: process.cwd() };
  return { sandbox, caller, paths, userHome };
}

/** Grants and revokes reach a running daemon without a restart: it rereads [sandbox] before each turn. */
export const LIVE_NOTE = "A running daemon applies this from its next turn.";
