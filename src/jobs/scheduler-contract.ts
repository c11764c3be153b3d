import type { Claim } from "./job-store-contract.ts";

/** A manual run as it was asked for: the claim, and once it was taken, the run's end. */
export type ManualRun = Claim & { done?: Promise<void> };

/** The daemon's job clock. */
export interface Scheduler {
  /** Reaps what a previous daemon left running, then starts the clock. */
  start(): Promise<void>;
  /** Stops arming; resolves once the runs in flight have settled (the caller aborts them first if it must). */
  stop(): Promise<void>;
  /** A job was created, edited, paused or resumed: look again at when to wake. */
  changed(): void;
  /** Fires a job now, out of band (trigger manual): a recurring cadence is untouched, a once job consumed. */
  runNow(jobId: string): ManualRun;
  /** Runs in flight in this process. */
  active(): number;
  /** Resolves once no run is in flight and no tick is under way (a slot freed starts another tick). */
  idle(): Promise<void>;
  /** One pass over the due jobs; concurrent calls coalesce into one more pass after the current one. */
  tick(): Promise<void>;
}
