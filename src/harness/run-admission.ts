import type { Config } from "../config/schema.ts";
import type { ActiveRun } from "./active-run.ts";
import type { CliDetector } from "./cli-detect-contract.ts";
import type { StartRequest } from "./harness-service-contract.ts";
import { harnessSettings } from "./harness-settings.ts";
import { type FailureTag, HarnessRefused, VENDOR_COMMAND, VENDOR_LABEL } from "./harness-types.ts";

export type AdmissionDeps = {
  role: "daemon" | "oneshot";
  config: () => Config;
  cli: CliDetector;
};

export const refuse = (data: { tag: FailureTag }, message: string) => HarnessRefused(message, data);

/**
 * Whether a run may start now, checked in the order the owner would fix things: turned on, approved, in the
 * daemon, CLI installed, prompt small enough, a free slot, a free workspace. Throws HarnessRefused saying which.
 */
export function admitRun(
  deps: AdmissionDeps,
  active: ReadonlyMap<string, ActiveRun>,
  req: StartRequest,
): { cli: string; locks: string[] } {
  const config = deps.config().fermix_core?.harness;
  const label = VENDOR_LABEL[req.vendor];
  if (config?.enabled === false) {
    throw refuse(
      { tag: "not_authorized" },
      "The coding harness is turned off ([fermix_core.harness] enabled = false).",
    );
  }
  if (config?.approved !== true) {
    throw refuse(
      { tag: "consent_required" },
      "The owner has not approved coding-harness runs yet (Setup → Coding agents, or [fermix_core.harness] approved = true).",
    );
  }
  if (deps.role !== "daemon") {
    throw refuse(
      { tag: "daemon_required" },
      "Coding runs run in the fermix daemon (start it with `fermix start`): a one-shot ask would end the run with it.",
    );
  }
  const cli = deps.cli(req.vendor);
  if (!cli) {
    throw refuse(
      { tag: "cli_unavailable" },
      `The ${label} CLI (\`${VENDOR_COMMAND[req.vendor]}\`) was not found on the daemon's PATH; install it and restart fermix.`,
    );
  }
  const s = harnessSettings(deps.config());
  if (Buffer.byteLength(req.prompt) > s.promptMaxKb * 1024) {
    throw refuse(
      { tag: "not_authorized" },
      `The prompt is longer than ${s.promptMaxKb} KB ([fermix_core.harness] prompt_argv_max_kb); shorten it or put the details in a file in the repo and point to it.`,
    );
  }
  if (active.size >= s.maxActive) {
    throw refuse(
      { tag: "max_active" },
      `${active.size} coding runs are already active (limit ${s.maxActive}, [fermix_core.harness] max_active); wait for one to finish or stop one with cancel_coding_run.`,
    );
  }
  const locks = [req.cwd, ...req.addDirs];
  for (const other of active.values()) {
    const clash = locks.find((a) => other.locks.some((b) => overlaps(a, b)));
    if (clash) {
      throw refuse(
        { tag: "workspace_locked" },
        `Coding run ${other.run.id} is still working in ${clash}; one run per workspace at a time. Wait for it (get_coding_run ${other.run.id}) or cancel it.`,
      );
    }
  }
  return { cli, locks };
}

function overlaps(a: string, b: string): boolean {
  const within = (inner: string, outer: string) =>
    inner === outer || inner.startsWith(outer.endsWith("/") ? outer : `${outer}/`);
  return within(a, b) || within(b, a);
}
