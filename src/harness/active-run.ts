import type { HarnessRun } from "./harness-types.ts";
import type { VendorProcess } from "./run-process.ts";

/** Why this process ended a run before the vendor did. */
export type StopReason = "cancelled" | "timeout" | "inactivity" | "framing" | "shutdown";

/** A run this process started and still follows. */
export type ActiveRun = {
  run: HarnessRun;
  /** The folders it may write, which no other run may use meanwhile. */
  locks: string[];
  proc?: VendorProcess;
  stop?: StopReason;
  done: Promise<HarnessRun>;
};
