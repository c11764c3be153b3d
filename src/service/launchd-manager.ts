import type { ServiceManager } from "./manager-contract.ts";
import { type CommandRunner, mustRun } from "./service-command.ts";
import type { ServiceTarget } from "./service-target.ts";
import { SERVICE_LABEL } from "./target.ts";

/**
 * `launchctl` on io.tezra.fermix. launchd reads a plist only at bootstrap, and KeepAlive respawns a job
 * that merely exits, so stopping is `bootout` (unload) and restarting is bootout + bootstrap — which also
 * picks up a rewritten plist, where `kickstart -k` would rerun the old definition.
 */
export function createLaunchdManager(target: ServiceTarget, run: CommandRunner, uid: number): ServiceManager {
  const domain = target.scope === "user" ? `gui/${uid}` : "system";
  const service = `${domain}/${SERVICE_LABEL}`;
  const ctl = (...args: string[]) => mustRun(run, target, ["launchctl", ...args]).then(() => undefined);
  const print = () => run(["launchctl", "print", service]);
  const loaded = async () => (await print()).code === 0;
  const bootstrap = () => ctl("bootstrap", domain, target.path);
  const bootout = async () => {
    if (await loaded()) await ctl("bootout", service);
  };
  const start = async () => {
    if (await loaded()) await ctl("kickstart", service);
    else await bootstrap();
  };
  return {
    target,
    reload: async () => {},
    enable: start,
    disable: bootout,
    start,
    stop: bootout,
    async restart() {
      await bootout();
      await bootstrap();
    },
    async state() {
      const result = await print();
      if (result.code !== 0) return { active: false, state: "not loaded" };
      const state = /^\s*state = (.+)$/m.exec(result.stdout)?.[1]?.trim() ?? "loaded";
      const pid = Number(/^\s*pid = (\d+)$/m.exec(result.stdout)?.[1]);
      return { active: state === "running", state, ...(pid ? { pid } : {}) };
    },
  };
}
