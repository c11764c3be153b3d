import type { JobStore } from "./job-store-contract.ts";
import type { DeliveryMode } from "./job-types.ts";
import type { ManualRun } from "./scheduler-contract.ts";

/** Jobs as the rest of fermix uses them: the store, the defaults and checks of the job tools, and the clock. */
export interface JobService {
  store: JobStore;
  role: "daemon" | "oneshot";
  /** What schedule_job fills in when the model leaves it out. */
  defaults(): { timezone: string; deliveryMode: DeliveryMode };
  /**
   * A provider/model pin resolved as the runner will resolve it: undefined when it routes, else the routing
   * error's sentence (an unconfigured provider, a missing key). schedule_job and update_job check pins here.
   */
  checkRoute(pin: { provider: string; model: string }): string | undefined;
  /** The daemon's clock starts: runs a previous daemon left running are marked interrupted first. */
  start(): Promise<void>;
  /** Ends the runs in flight (recorded as interrupted) and stops the clock. */
  stop(): Promise<void>;
  /** A job was created or edited: the clock looks again. */
  changed(): void;
  /** Fires a job now (trigger manual); `done` settles when the run has. */
  runNow(jobId: string): ManualRun;
}
