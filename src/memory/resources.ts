import { mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from "node:fs";
import { dirname } from "node:path";
import { defineError } from "../error.ts";
import type { SqlDatabase } from "../runtime/sqlite.ts";
import type { Resources, Revision, RevisionSummary } from "./resources-contract.ts";

export const RevisionNotFound = defineError<{ id: number }>("revision_not_found");

type Row = { id: number; name: string; revision: number; content: string; reason: string; created_at: number };

/**
 * Versioned files (USER.md, MEMORY.md, …) in the resource registry. Every write through here is a
 * revision, and so is whatever the file held before if nothing here wrote it (the seeded template, an
 * edit by hand): nothing a write replaces is ever lost, and any revision can be brought back.
 */
export function createResources(db: SqlDatabase, now: () => number = Date.now): Resources {
  const latest = db.query(
    "SELECT id, name, revision, content, reason, created_at FROM resource_revisions WHERE name = $name ORDER BY revision DESC LIMIT 1",
  );
  const byId = db.query(
    "SELECT id, name, revision, content, reason, created_at FROM resource_revisions WHERE id = $id",
  );
  const list =
    db.query(`SELECT r.id, r.name, r.revision, r.reason, r.created_at, length(CAST(r.content AS BLOB)) AS bytes,
      r.id = s.current_revision AS current
    FROM resource_revisions r LEFT JOIN resources s ON s.name = r.name
    WHERE $name IS NULL OR r.name = $name ORDER BY r.name, r.revision DESC`);
  const insert = db.query(`INSERT INTO resource_revisions (name, revision, content, reason, created_at)
    VALUES ($name, COALESCE((SELECT MAX(revision) FROM resource_revisions WHERE name = $name), 0) + 1, $content, $reason, $now)
    RETURNING id, name, revision, content, reason, created_at`);
  const point = db.query(`INSERT INTO resources (name, current_revision, updated_at) VALUES ($name, $id, $now)
    ON CONFLICT (name) DO UPDATE SET current_revision = excluded.current_revision, updated_at = excluded.updated_at`);

  const latestOf = (name: string): Revision | undefined => {
    const row = latest.get({ name }) as Row | null;
    return row ? toRevision(row) : undefined;
  };
  const record = (name: string, content: string, reason: string): Revision => {
    const row = insert.get({ name, content, reason, now: now() }) as Row;
    point.run({ name, id: row.id, now: row.created_at });
    return toRevision(row);
  };

  return {
    latest: latestOf,

    get(id: number): Revision {
      const row = byId.get({ id }) as Row | null;
      if (!row) throw RevisionNotFound(`there is no revision ${id}; \`fermix memory revisions\` lists them`, { id });
      return toRevision(row);
    },

    list(name?: string): RevisionSummary[] {
      return (list.all({ name: name ?? null }) as (Omit<Row, "content"> & { bytes: number; current: number })[]).map(
        (r) => ({
          id: r.id,
          name: r.name,
          revision: r.revision,
          reason: r.reason,
          createdAt: r.created_at,
          bytes: r.bytes,
          current: r.current === 1,
        }),
      );
    },

    write(name: string, file: string, content: string, reason: string): Revision {
      const before = readIfExists(file);
      mkdirSync(dirname(file), { recursive: true, mode: 0o700 });
      const temp = `${file}.${process.pid}.tmp`;
      writeFileSync(temp, content, { mode: 0o600 });
      try {
        return db
          .transaction(() => {
            if (before !== undefined && before !== latestOf(name)?.content) {
              record(name, before, "kept: the file as it was before this write");
            }
            const revision = record(name, content, reason);
            renameSync(temp, file);
            return revision;
          })
          .immediate();
      } finally {
        rmSync(temp, { force: true });
      }
    },
  };
}

function readIfExists(file: string): string | undefined {
  try {
    return readFileSync(file, "utf8");
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === "ENOENT") return undefined;
    throw err;
  }
}

function toRevision(r: Row): Revision {
  return {
    id: r.id,
    name: r.name,
    revision: r.revision,
    content: r.content,
    reason: r.reason,
    createdAt: r.created_at,
  };
}
