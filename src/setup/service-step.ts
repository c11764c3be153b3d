import type { Env } from "../config/env.ts";
import { isFermixError } from "../error.ts";
import { ensureServiceUnit } from "../service/drift.ts";
import { createServiceManager } from "../service/manager.ts";
import type { ServiceManager } from "../service/manager-contract.ts";
import type { CommandRunner } from "../service/service-command.ts";
import type { ServiceScope } from "../service/service-target.ts";
import { describeTarget, planService, type ServicePlan } from "../service/target.ts";

/**
 * Setup's last step: the unit this binary would write is installed and running. A unit that drifted from it
 * (another PATH or template after an upgrade) is rewritten and reloaded, then restarted; an up-to-date one
 * is restarted only when setup just changed config.toml, which the daemon reads at start.
 */
export type ServiceDeps = {
  env: Env;
  /** The built binary a unit runs; throws `from_source` from a checkout. */
  binary(): string;
  platform?: string;
  systemRoot?: string;
  run?: CommandRunner;
  manager?: ServiceManager;
};

export type ServiceStep = {
  action: "created" | "rewritten" | "unchanged";
  what: string;
  path: string;
  diff: string[];
  /** Restarted so the daemon reads a config.toml (or key) that changed. */
  restarted: boolean;
};

/** Whether there is a service to set up here at all, and the unit it would be. */
export function planSetupService(
  scope: ServiceScope,
  deps: ServiceDeps,
): { ok: true; plan: ServicePlan } | { ok: false; reason: string } {
  let binary: string;
  try {
    binary = deps.binary();
  } catch (err) {
    if (isFermixError(err) && err.code === "from_source") {
      return {
        ok: false,
        reason:
          "running from source (bun src/main.ts), and a service must run a built binary; build one (bun run build) and run its setup, or start the daemon with fermix start",
      };
    }
    throw err;
  }
  try {
    return {
      ok: true,
      plan: planService({ scope, env: deps.env, binary, platform: deps.platform, systemRoot: deps.systemRoot }),
    };
  } catch (err) {
    if (isFermixError(err) && err.code === "unsupported_platform") return { ok: false, reason: err.message };
    throw err;
  }
}

export async function runServiceStep(
  plan: ServicePlan,
  /** config.toml or the key changed: an up-to-date unit is restarted so the daemon reads them again. */
  configChanged: boolean,
  deps: ServiceDeps,
): Promise<ServiceStep> {
  const manager = deps.manager ?? createServiceManager(plan.target, { env: deps.env, run: deps.run });
  const result = await ensureServiceUnit({ plan, manager, enable: true });
  let restarted = result.steps.includes("restart");
  if (configChanged && !restarted && result.action === "unchanged") {
    await manager.restart();
    restarted = true;
  }
  return { action: result.action, what: describeTarget(plan.target), path: result.path, diff: result.diff, restarted };
}
