import type { ServiceManager } from "./manager-contract.ts";
import { type CommandRunner, mustRun } from "./service-command.ts";
import type { ServiceTarget } from "./service-target.ts";
import { SYSTEMD_UNIT_NAME } from "./target.ts";

/** `systemctl [--user] …` on fermix.service. */
export function createSystemdManager(target: ServiceTarget, run: CommandRunner): ServiceManager {
  const base = target.scope === "user" ? ["systemctl", "--user"] : ["systemctl"];
  const ctl = (...args: string[]) => mustRun(run, target, [...base, ...args]).then(() => undefined);
  return {
    target,
    reload: () => ctl("daemon-reload"),
    enable: () => ctl("enable", "--now", SYSTEMD_UNIT_NAME),
    disable: () => ctl("disable", "--now", SYSTEMD_UNIT_NAME),
    start: () => ctl("start", SYSTEMD_UNIT_NAME),
    stop: () => ctl("stop", SYSTEMD_UNIT_NAME),
    restart: () => ctl("restart", SYSTEMD_UNIT_NAME),
    async state() {
      // is-active prints the state and exits non-zero for anything but "active"; that is an answer, not a failure.
      const result = await run([...base, "is-active", SYSTEMD_UNIT_NAME]);
      const state = result.stdout.trim() || "unknown";
      return { active: state === "active", state };
    },
  };
}
