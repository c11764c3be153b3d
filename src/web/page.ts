import type { DoctorReport } from "../doctor/run-doctor.ts";
import type { Status } from "../protocol/schemas.ts";
import type { Html } from "./html.ts";

/** One recent scheduled-job run, as the dashboard lists it (no prompt or output: those stay in `fermix jobs`). */
export type RunSummary = { job: string; runId: string; status: string; at: number; error: string | null };

/** What the pages read, handed in by the daemon (tests hand in fakes). */
export type WebDeps = {
  status(): Promise<Status>;
  /** The doctor's rows, redacted as `fermix doctor` prints them. */
  doctor(): Promise<DoctorReport>;
  recentRuns(limit: number): Promise<RunSummary[]>;
};

/** One page of the setup site: its path, its nav title, and its body (the frame is html.ts's layout). */
export type Page = { path: string; title: string; render(deps: WebDeps): Promise<Html> };

export function definePage(page: Page): Page {
  return page;
}
