import type { Revision, RevisionSummary } from "./resources-contract.ts";

export type ProfileUpdate = { name: string; revisionId: number; revision: number };

export type ReviewReport =
  | { status: "skipped"; reason: string; nextAt?: number }
  | { status: "done"; facts: number; replaced: string[]; retired: string[]; files: ProfileUpdate[] }
  | { status: "failed"; error: string; nextAt: number };

/** The background memory review: runs when due or on demand, and brings its profile files back to a revision. */
export interface Review {
  /** Runs when 24 h have passed since the last review (call it after a turn; it is cheap when not due). */
  maybeRun(): Promise<ReviewReport>;
  runNow(): Promise<ReviewReport>;

  /** Brings a file back to an earlier revision; the restore is itself a revision, so it can be undone. */
  restore(revisionId: number): Revision;

  listRevisions(name?: string): RevisionSummary[];
}
