import { closeSync, mkdirSync, openSync } from "node:fs";
import type { Env } from "../config/env.ts";
import { fermixPaths, resolveHome } from "../config/paths.ts";
import { spawn } from "../runtime/processes.ts";
import { installedService } from "../service/daemon-control.ts";
import type { ServiceManager } from "../service/manager-contract.ts";
import { selfCommand } from "../service/self.ts";
import { daemonOutputPath } from "../service/target.ts";

/** The web page's "Apply & restart": which daemon answers now, and a restart that outlives it. */
export type RestartControl = {
  /** This daemon's pid: the wait page knows the restart is done when another one answers. */
  pid: number;
  /** Starts the restart and returns at once; the daemon goes away shortly after. */
  restart(): Promise<void>;
};

export type DaemonRestartDeps = {
  env: Env;
  log: { info(msg: string): void; error(msg: string): void };
  /** For tests: the installed service, if any (looked up from `env` otherwise). */
  service?: () => ServiceManager | undefined;
  /** For tests: what starts the helper. */
  spawnHelper?: (argv: string[], env: Record<string, string>, home: string) => void;
};

/**
 * A daemon cannot start its own successor and then stop (the successor needs the socket, the port and the lock),
 * so it hands the job to someone who outlives it, as `fermix restart` would do it:
 * - under systemd, `systemctl restart` — the manager carries the job even when it stops the caller's cgroup, which
 *   a helper inside that cgroup could not survive;
 * - otherwise a detached `fermix restart` (own session, so the daemon's shutdown does not take it along; under
 *   launchd its own process group outlives the bootout) that stops this daemon over the socket and starts the next.
 * The helper is short-lived: `fermix restart` gives up after its stop and start deadlines.
 */
export function createDaemonRestart(deps: DaemonRestartDeps): RestartControl {
  const service = deps.service ?? (() => installedService(deps.env));
  const spawnHelper = deps.spawnHelper ?? detachedHelper;
  return {
    pid: process.pid,
    async restart() {
      const manager = service();
      if (manager?.target.kind === "systemd") {
        deps.log.info("web: Apply & restart: restarting through systemd");
        void manager.restart().catch((err) => deps.log.error(`web: the restart failed: ${(err as Error).message}`));
        return;
      }
      const self = selfCommand();
      const argv = [self.binary, ...(self.entry ? [self.entry] : []), "restart"];
      deps.log.info("web: Apply & restart: a detached `fermix restart` takes over");
      try {
        spawnHelper(argv, defined(deps.env), resolveHome(deps.env));
      } catch (err) {
        deps.log.error(`web: the restart failed: ${(err as Error).message}`);
      }
    },
  };
}

/** `fermix restart` in its own session, its output appended where a detached daemon's goes. */
function detachedHelper(argv: string[], env: Record<string, string>, home: string): void {
  const paths = fermixPaths(home);
  mkdirSync(paths.logs, { recursive: true, mode: 0o700 });
  const out = openSync(daemonOutputPath(home), "a", 0o600);
  try {
    const child = spawn(argv, { env, cwd: paths.home, detached: true, stdin: "ignore", stdout: out, stderr: out });
    child.unref();
  } finally {
    closeSync(out);
  }
}

function defined(env: Env): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(env)) if (v !== undefined) out[k] = v;
  return out;
}
