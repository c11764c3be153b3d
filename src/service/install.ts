import { existsSync, readFileSync, rmSync } from "node:fs";
import type { Env } from "../config/env.ts";
import { fermixPaths, resolveHome } from "../config/paths.ts";
import { FermixError } from "../error.ts";
import type { ServiceAccount } from "./account.ts";
import { daemonHealth } from "./daemon-control.ts";
import { type EnsureResult, ensureServiceUnit, unitDrift } from "./drift.ts";
import { createServiceManager } from "./manager.ts";
import type { ServiceManager, ServiceState } from "./manager-contract.ts";
import type { CommandRunner } from "./service-command.ts";
import type { ServiceKind, ServiceScope, ServiceTarget } from "./service-target.ts";
import { planService, serviceKind, serviceTarget, unitServesHome } from "./target.ts";

/** What `fermix service …` works on; everything past scope and env is injectable for tests. */
export type ServiceOptions = {
  scope: ServiceScope;
  env: Env;
  platform?: string;
  /** Root of the system unit directories: "/" for real, a temp dir in tests. */
  systemRoot?: string;
  uid?: number;
  run?: CommandRunner;
  manager?: ServiceManager;
  /** Whose agent a system service runs (tests); found from SUDO_USER or the caller otherwise. */
  account?: ServiceAccount;
};

export type InstallReport = EnsureResult & { kind: ServiceKind; scope: ServiceScope };

export type ServiceStatusReport = {
  kind: ServiceKind;
  scope: ServiceScope;
  path: string;
  installed: boolean;
  /** Compared with what this binary would write; "unchecked" when running from source. */
  drift: "missing" | "same" | "drifted" | "unchecked";
  diff: string[];
  /** Whether the unit runs this FERMIX_HOME's daemon. */
  home: string;
  serves_home: boolean;
  /** The manager's answer, or why there is none. */
  manager: ServiceState | { active: false; state: "unknown"; error: string } | null;
  daemon: { running: true; version: string; pid: number } | { running: false };
};

export const NeedsRoot = (message: string) => new FermixError("needs_root", message);

/** A system unit lives in a root-owned directory and is run by the system manager. */
export function requireRoot(scope: ServiceScope, uid: number, verb: string): void {
  if (scope === "system" && uid !== 0) {
    throw NeedsRoot(
      `the system service needs root: run \`sudo fermix service ${verb} --system\` (or leave out --system for a user service)`,
    );
  }
}

export async function installService(opts: ServiceOptions & { binary: string }): Promise<InstallReport> {
  requireRoot(opts.scope, uidOf(opts), "install");
  const plan = planService(opts);
  const result = await ensureServiceUnit({ plan, manager: managerFor(plan.target, opts), enable: true });
  return { ...result, kind: plan.target.kind, scope: plan.target.scope };
}

export async function uninstallService(
  opts: ServiceOptions,
): Promise<{ removed: boolean; kind: ServiceKind; scope: ServiceScope; path: string }> {
  const target = targetOf(opts);
  const report = { kind: target.kind, scope: target.scope, path: target.path };
  if (!existsSync(target.path)) return { removed: false, ...report };
  requireRoot(opts.scope, uidOf(opts), "uninstall");
  const manager = managerFor(target, opts);
  await manager.disable();
  rmSync(target.path, { force: true });
  await manager.reload();
  return { removed: true, ...report };
}

export async function serviceStatus(opts: ServiceOptions & { binary?: string }): Promise<ServiceStatusReport> {
  const target = targetOf(opts);
  const home = resolveHome(opts.env);
  const installed = existsSync(target.path);
  let drift: ServiceStatusReport["drift"] = installed ? "unchecked" : "missing";
  let diff: string[] = [];
  if (installed && opts.binary) {
    const found = unitDrift(target.path, planService({ ...opts, binary: opts.binary }).content);
    drift = found.state;
    if (found.state === "drifted") diff = found.diff;
  }
  let manager: ServiceStatusReport["manager"] = null;
  if (installed) {
    manager = await managerFor(target, opts)
      .state()
      .catch((err: Error) => ({ active: false as const, state: "unknown" as const, error: err.message }));
  }
  const serves = installed && unitServesHome(target.kind, readFileSync(target.path, "utf8"), home);
  const daemon = await daemonHealth(fermixPaths(home).socket);
  return { ...target, installed, drift, diff, home, serves_home: serves, manager, daemon };
}

function targetOf(opts: ServiceOptions): ServiceTarget {
  return serviceTarget({
    kind: serviceKind(opts.platform),
    scope: opts.scope,
    env: opts.env,
    systemRoot: opts.systemRoot,
  });
}

function managerFor(target: ServiceTarget, opts: ServiceOptions): ServiceManager {
  return opts.manager ?? createServiceManager(target, { env: opts.env, uid: opts.uid, run: opts.run });
}

function uidOf(opts: ServiceOptions): number {
  return opts.uid ?? process.getuid?.() ?? 0;
}
