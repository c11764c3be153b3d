import type { RevisionSummary } from "../memory/resources-contract.ts";
import type { Review, ReviewReport } from "../memory/review-contract.ts";

/** The Memory card: `fermix memory review --now`, `revisions` and `restore`, on the daemon's own review runner. */
export type MemoryWeb = {
  revisions(): Promise<RevisionSummary[]>;
  reviewNow(): Promise<ReviewReport>;
  /** Brings a profile file back to a revision (itself a new revision); what it became. */
  restore(id: number): Promise<{ name: string; revision: number; id: number }>;
};

export function createMemoryWeb(review: () => Promise<Review>): MemoryWeb {
  return {
    revisions: async () => (await review()).listRevisions(),
    reviewNow: async () => (await review()).runNow(),
    async restore(id) {
      const r = (await review()).restore(id);
      return { name: r.name, revision: r.revision, id: r.id };
    },
  };
}
