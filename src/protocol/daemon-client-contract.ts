import type {
  ApprovalRequest,
  AskDone,
  AskRequest,
  ChannelsReport,
  Health,
  Hello,
  JobAnswer,
  JobList,
  JobRemoved,
  PluginsReport,
  RunAnswer,
  RunList,
  SkillReloadReport,
  Status,
} from "./schemas.ts";

/** The daemon's socket API as the CLI calls it; every answer validated against the protocol's schemas. */
export interface DaemonClient {
  hello(): Promise<Hello>;
  health(): Promise<Health>;
  status(): Promise<Status>;
  shutdown(): Promise<void>;
  /** Rescans the daemon's skills and says what changed. */
  reloadSkills(): Promise<SkillReloadReport>;
  /** `fermix auth logout`: the daemon drops what it holds of a provider sign-in. Bounded like jobsChanged. */
  forgetAuth(profile: string): Promise<void>;
  /** A job changed outside the daemon (a one-shot ask): it re-reads when to wake. Bounded: never holds a CLI. */
  jobsChanged(): Promise<void>;
  /** Scheduled jobs, newest first (one state only, with `state`). */
  jobs(opts?: { state?: string }): Promise<JobList>;
  job(id: string): Promise<JobAnswer>;
  /** A job's runs, newest first (20 unless `limit` says otherwise). */
  jobRuns(id: string, opts?: { status?: string; limit?: number }): Promise<RunList>;
  /** One run, with the prompt and config it ran with. */
  jobRun(runId: string): Promise<RunAnswer>;
  /** Fires a job now; answered once its run is claimed (the run goes on in the daemon). */
  runJob(id: string): Promise<RunAnswer>;
  pauseJob(id: string): Promise<JobAnswer>;
  resumeJob(id: string): Promise<JobAnswer>;
  removeJob(id: string): Promise<JobRemoved>;
  /** Each plugin's live state in the daemon: starting (attempt n/N), ready (n tools), quarantined (why). */
  plugins(): Promise<PluginsReport>;
  /** Each enabled chat channel's live state: running or not, connected, last update, degraded reason. */
  channels(): Promise<ChannelsReport>;
  /** Re-applies plugin configuration now (starting quarantined servers fresh) and reports the result. */
  reloadPlugins(opts?: { devLocal?: boolean }): Promise<PluginsReport>;

  /** Runs a turn in the daemon; text deltas go to `onText`, the final answer is returned. */
  ask(
    request: AskRequest,
    opts?: {
      signal?: AbortSignal;
      onText?: (delta: string) => void;
      /** `approval`: the same request in structured form, for a client that asks it inline. */
      onNotice?: (text: string, approval?: ApprovalRequest) => void;
    },
  ): Promise<AskDone>;
}
