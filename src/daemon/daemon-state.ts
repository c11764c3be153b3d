import type { App } from "../app-contract.ts";
import type { WebState } from "../web/web-server-contract.ts";

/** What the daemon's routes work with; apart from routes.ts so the job routes it delegates to can name it too. */
export type DaemonState = {
  app: App;
  startedAt: number;
  /** Turns in flight, aborted when the daemon shuts down. */
  turns: Set<AbortController>;
  requestShutdown(): void;
  /** The setup page's listener (absent: this daemon serves none). */
  web?: () => WebState;
  /** Errors nothing handled since the daemon started (its fault policy, fault-policy.ts); absent: not counted. */
  faults?: () => number;
};
