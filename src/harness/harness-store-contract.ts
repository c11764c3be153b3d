import type { ConversationKey } from "../memory/messages-contract.ts";
import type { DeliveryAttempt, DeliveryState, FailureTag, HarnessRun, RunStatus } from "./harness-types.ts";

/** What a run's end changes at once: status, outcome and the counters the stream reader kept. */
export type RunEnd = {
  status: Extract<RunStatus, "completed" | "failed" | "cancelled" | "interrupted">;
  finalMessage?: string;
  error?: string;
  failureTag?: FailureTag;
  exitCode?: number;
  events?: number;
  framingErrors?: number;
  usage?: unknown;
  vendorSession?: string;
};

/** The stream's latest news: the vendor's session id once known, the last milestone, the event counters. */
export type RunProgress = { vendorSession?: string; milestone?: string; events: number; framingErrors: number };

/** harness_runs in memory.db: one row per coding run, kept after it ends so its result can be read again. */
export interface HarnessStore {
  get(id: string): HarnessRun | undefined;
  create(run: Omit<HarnessRun, "status" | "events" | "framingErrors" | "delivery" | "deliveryAttempts">): HarnessRun;
  running(id: string, pid: number): void;
  progress(id: string, p: RunProgress): void;
  /** Ends an active run; a run that already ended is left as it is (false). */
  finish(id: string, end: RunEnd): boolean;
  /** The delivery's final state; no further attempt is planned. */
  delivered(id: string, status: Exclude<DeliveryState, "retrying">, error?: string): void;
  /** Plans the next delivery attempt at `at` (epoch ms); `error` is why the last one failed, if one did. */
  deliveryDue(id: string, at: number, error?: string): void;
  /** Records one delivery attempt's outcome on the run. */
  deliveryAttempt(id: string, attempt: DeliveryAttempt): void;
  /** Finished runs with a delivery attempt planned: a previous daemon stopped before it was done. */
  dueDeliveries(): HarnessRun[];
  list(filter?: { status?: RunStatus; limit?: number }): HarnessRun[];
  active(): HarnessRun[];
  /** Finished runs whose result waits for the next turn of `conversation` (a CLI session). */
  pendingFor(conversation: ConversationKey): HarnessRun[];
  /**
   * Runs a previous daemon left active (it was killed or crashed; its process groups were reaped at start):
   * marked interrupted, never resumed.
   */
  interruptLeftovers(reason: string): HarnessRun[];
}
