import type { ConversationKey } from "../memory/messages-contract.ts";
import type { HarnessStore } from "./harness-store-contract.ts";
import type { HarnessRun, Vendor } from "./harness-types.ts";

export type StartRequest = {
  vendor: Vendor;
  prompt: string;
  /** Canonical, already checked against the sandbox. */
  cwd: string;
  /** Folders the run may write beyond cwd (also locked while it runs). */
  addDirs: string[];
  /** The CLI's arguments, given the run's own folder for its files. */
  args(runDir: string): string[];
  /** What the model asked, kept with the record. */
  params: Record<string, unknown>;
  progress: "quiet" | "milestones";
  timeoutMinutes?: number;
  origin: ConversationKey;
  jobId?: string;
};

/** Coding-harness runs: admission, the vendor process, its event stream, and the result's delivery. */
export interface HarnessService {
  store: HarnessStore;
  /** Admits and starts a run (HarnessRefused says why not); it goes on in the background. */
  start(req: StartRequest): HarnessRun;
  get(id: string): HarnessRun | undefined;
  list(filter?: Parameters<HarnessStore["list"]>[0]): HarnessRun[];
  /** Stops an active run of this process; the run as it ended (undefined: no such run). */
  cancel(id: string): Promise<HarnessRun | undefined>;
  /** Resolves once the run has ended and its delivery settled: sent, failed for good, or left planned at a stop. */
  settled(id: string): Promise<HarnessRun | undefined>;
  activeCount(): number;
  /** Results waiting for this conversation's next turn; each is marked sent once returned. */
  takePending(conversation: ConversationKey): Array<{ run: HarnessRun; message: string }>;
  /**
   * The daemon stops: every run it started is ended and recorded as interrupted; a result still being retried
   * stays planned in memory.db, for the next daemon.
   */
  stopAll(): Promise<void>;
}
