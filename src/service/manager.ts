import type { Env } from "../config/env.ts";
import { createLaunchdManager } from "./launchd-manager.ts";
import type { ServiceManager } from "./manager-contract.ts";
import { type CommandRunner, commandRunner } from "./service-command.ts";
import type { ServiceTarget } from "./service-target.ts";
import { createSystemdManager } from "./systemd-manager.ts";

export type ManagerDeps = {
  /** The environment of the manager commands; its PATH decides which systemctl/launchctl runs. */
  env: Env;
  /** For launchd's `gui/<uid>` domain. */
  uid?: number;
  run?: CommandRunner;
};

export function createServiceManager(target: ServiceTarget, deps: ManagerDeps): ServiceManager {
  const run = deps.run ?? commandRunner(deps.env);
  const uid = deps.uid ?? process.getuid?.() ?? 0;
  return target.kind === "systemd" ? createSystemdManager(target, run) : createLaunchdManager(target, run, uid);
}
