import type { StopReason } from "./active-run.ts";
import type { HarnessSettings } from "./harness-settings.ts";
import type { RunEnd } from "./harness-store-contract.ts";
import { VENDOR_COMMAND, VENDOR_LABEL, type Vendor } from "./harness-types.ts";

/** How a run ended, from why this process stopped it (if it did), then the vendor's own error, then its exit. */
export function runOutcome(o: {
  stop?: StopReason;
  vendor: Vendor;
  exitCode: number;
  final?: string;
  vendorError?: string;
  timeoutMinutes: number;
  s: HarnessSettings;
  stderr: string;
}): RunEnd {
  const label = VENDOR_LABEL[o.vendor];
  const base = { exitCode: o.exitCode, ...(o.final !== undefined ? { finalMessage: o.final } : {}) };
  switch (o.stop) {
    case "cancelled":
      return { ...base, status: "cancelled", error: "cancelled with cancel_coding_run" };
    case "shutdown":
      return { ...base, status: "interrupted", error: "fermix stopped while the run was going" };
    case "timeout":
      return {
        ...base,
        status: "failed",
        failureTag: "timeout",
        error: `stopped after its ${o.timeoutMinutes}-minute limit`,
      };
    case "inactivity":
      return {
        ...base,
        status: "failed",
        failureTag: "inactivity",
        error: `${label} printed nothing for ${o.s.inactivityMinutes} minutes ([fermix_core.harness] inactivity_minutes)`,
      };
    case "framing":
      return {
        ...base,
        status: "failed",
        failureTag: "framing",
        error: `${label}'s output stopped being JSON events (more than ${o.s.maxFramingErrors} bad lines)`,
      };
  }
  if (o.vendorError) return { ...base, status: "failed", failureTag: "vendor_error", error: o.vendorError };
  if (o.exitCode !== 0) {
    return {
      ...base,
      status: "failed",
      failureTag: "exit_nonzero",
      error: `${VENDOR_COMMAND[o.vendor]} exited with ${o.exitCode}${o.stderr ? `: ${o.stderr.slice(-600)}` : ""}`,
    };
  }
  return { ...base, status: "completed" };
}
