export type Revision = {
  id: number;
  name: string;
  revision: number;
  content: string;
  reason: string;
  createdAt: number;
};
export type RevisionSummary = Omit<Revision, "content"> & { bytes: number; current: boolean };

/** Versioned files (USER.md, MEMORY.md, …): every write a revision, any revision readable and listable. */
export interface Resources {
  latest(name: string): Revision | undefined;

  get(id: number): Revision;

  list(name?: string): RevisionSummary[];

  /**
   * Writes `file` atomically (temp + rename) and records the new content as a revision of `name`. What the
   * file held before is recorded first when it is not already the latest revision. Rows and rename go
   * together: if the transaction fails the temp file is removed and the old file stays.
   */
  write(name: string, file: string, content: string, reason: string): Revision;
}
