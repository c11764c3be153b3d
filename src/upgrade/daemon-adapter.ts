import type { Env } from "../config/env.ts";
import { fermixPaths, resolveHome } from "../config/paths.ts";
import { daemonHealth, installedService, restartDaemon, waitForDaemon } from "../service/daemon-control.ts";
import { checkConfigWith } from "./config-check.ts";
import type { DaemonControl } from "./upgrade.ts";

/**
 * The upgrade's view of the daemon: restarted through the service manager when a unit runs this home,
 * otherwise stopped over its socket and started again as a detached `<binary> run` with this env — after `binary`
 * has checked the config its daemon will load, so a config it refuses leaves the running daemon alone.
 */
export function daemonControlFor(env: Env): DaemonControl {
  const socket = fermixPaths(resolveHome(env)).socket;
  let exited: Promise<number> | undefined;
  return {
    health: () => daemonHealth(socket),
    serviceInstalled: async () => installedService(env) !== undefined,
    async restart(binary) {
      // The binary started is another fermix (the new release, or the previous one on a rollback): its own check.
      const { started } = await restartDaemon({
        binary,
        env: { ...env },
        checkConfig: () => checkConfigWith(binary, env),
      });
      exited = started.exited;
    },
    // A started process that already exited is a failed start: no need to wait out the whole timeout.
    waitFor: (version, timeoutMs) => waitForDaemon({ socket, version, timeoutMs, exited }),
  };
}
