import { chmodSync, closeSync, mkdirSync, openSync, readFileSync, renameSync, rmSync, writeSync } from "node:fs";
import { basename, dirname, join } from "node:path";
import { processEnv } from "../config/env.ts";
import { fermixPaths } from "../config/paths.ts";
import { FermixError } from "../error.ts";
import { lineDiff } from "./line-diff.ts";
import { createServiceManager } from "./manager.ts";
import type { ServiceManager } from "./manager-contract.ts";
import type { ServicePlan } from "./target.ts";

/** How the installed unit compares with what this binary would write now. */
export type UnitDrift = { state: "missing" } | { state: "same" } | { state: "drifted"; diff: string[] };

export function unitDrift(path: string, expected: string): UnitDrift {
  let installed: string;
  try {
    installed = readFileSync(path, "utf8");
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === "ENOENT") return { state: "missing" };
    throw err;
  }
  if (installed === expected) return { state: "same" };
  return { state: "drifted", diff: lineDiff(installed, expected) };
}

export type EnsureResult = {
  /** created: there was none; rewritten: it had drifted; unchanged: it already matched. */
  action: "created" | "rewritten" | "unchanged";
  path: string;
  /** For a rewrite: what changed, `- old` / `+ new`. */
  diff: string[];
  /** The manager operations run, in order. */
  steps: Array<"reload" | "restart" | "enable">;
};

/**
 * Makes the installed unit what this binary would write: written when missing, rewritten when drifted
 * (then the manager reloads it), left alone when it matches. With `enable` (the default) the service is
 * also enabled and running afterwards — restarted after a rewrite so the new unit takes effect. Without it,
 * a rewritten unit applies at the next restart. The setup wizard calls this; `fermix service install` too.
 */
export async function ensureServiceUnit(opts: {
  plan: ServicePlan;
  manager?: ServiceManager;
  env?: Record<string, string | undefined>;
  enable?: boolean;
}): Promise<EnsureResult> {
  const { plan } = opts;
  const { path } = plan.target;
  const manager = opts.manager ?? createServiceManager(plan.target, { env: opts.env ?? processEnv() });
  const enable = opts.enable ?? true;
  const drift = unitDrift(path, plan.content);
  const steps: EnsureResult["steps"] = [];
  if (plan.target.kind === "launchd") {
    // launchd opens StandardOutPath itself and gives up when its directory is missing.
    mkdirSync(fermixPaths(plan.home).logs, { recursive: true, mode: 0o700 });
  }
  if (drift.state !== "same") {
    writeUnitFile(path, plan.content);
    await manager.reload();
    steps.push("reload");
  }
  if (enable) {
    if (drift.state === "drifted") {
      // enable --now would leave a running daemon on the old unit; a restart applies the new one.
      await manager.restart();
      await manager.enable();
      steps.push("restart", "enable");
    } else {
      await manager.enable();
      steps.push("enable");
    }
  }
  const action = drift.state === "missing" ? "created" : drift.state === "drifted" ? "rewritten" : "unchanged";
  return { action, path, diff: drift.state === "drifted" ? drift.diff : [], steps };
}

/** Unit files are world-readable config (0644) in directories created 0755; replaced atomically. */
export function writeUnitFile(path: string, content: string): void {
  const dir = dirname(path);
  try {
    mkdirSync(dir, { recursive: true, mode: 0o755 });
    const temp = join(dir, `.${basename(path)}.${process.pid}.tmp`);
    try {
      const fd = openSync(temp, "w", 0o644);
      try {
        writeSync(fd, content);
      } finally {
        closeSync(fd);
      }
      chmodSync(temp, 0o644); // the umask may have narrowed it
      renameSync(temp, path);
    } catch (err) {
      rmSync(temp, { force: true });
      throw err;
    }
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === "EACCES" || code === "EPERM" || code === "EROFS") {
      throw new FermixError(
        "needs_root",
        `cannot write ${path} (${code}); a system service needs root: run it with sudo`,
        {
          path,
        },
      );
    }
    throw err;
  }
}
