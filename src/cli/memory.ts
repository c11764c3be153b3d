import { mkdirSync } from "node:fs";
import { createReviewRunner } from "../agent/memory-review.ts";
import { processEnv } from "../config/env.ts";
import { loadConfig } from "../config/load.ts";
import { fermixPaths, resolveHome } from "../config/paths.ts";
import { FermixError } from "../error.ts";
import { openDatabase } from "../memory/db.ts";
import { reviewSettings } from "../memory/memory-settings.ts";
import type { RevisionSummary } from "../memory/resources-contract.ts";
import type { ReviewReport } from "../memory/review-contract.ts";
import { createLog } from "../observability/log.ts";
import { resolveRoutes } from "../providers/routes.ts";
import { WIRES } from "../providers/wires/registry.ts";
import { meterAppRouter } from "../usage/app-usage.ts";
import { defineCommand } from "./command.ts";
import { EXIT, UsageError } from "./exit.ts";
import { writeOut } from "./output.ts";

export default defineCommand({
  meta: {
    name: "memory",
    description: "Review stored facts, list or restore revisions of USER.md and MEMORY.md",
  },
  subCommands: {
    review: defineCommand({
      meta: {
        name: "review",
        description: "Review stored facts and rebuild USER.md and MEMORY.md",
        details: "A review runs at most once in 24 h unless --now says otherwise.",
      },
      args: { now: { type: "boolean", description: "review now, whenever the last review ran" } },
      run: ({ args }) => review(args.now === true),
    }),
    revisions: defineCommand({
      meta: { name: "revisions", description: "List the revisions of USER.md and MEMORY.md (or of one file)" },
      args: { name: { type: "positional", required: false, description: "only this file's revisions" } },
      run: ({ args }) => revisions(args.name),
    }),
    restore: defineCommand({
      meta: {
        name: "restore",
        description: "Restore a file to one of its revisions (fermix memory revisions lists them)",
      },
      args: { id: { type: "positional", required: true, description: "the revision, rev_<n> or the bare number" } },
      run: ({ args }) => restore(parseRevisionId(args.id)),
    }),
  },
});

/** memory.db, the profile files and the review, as the daemon would build them, in this process. */
async function localReview() {
  const env = processEnv();
  const paths = fermixPaths(resolveHome(env));
  const config = await loadConfig(paths.config);
  mkdirSync(paths.home, { recursive: true, mode: 0o700 });
  const db = openDatabase(paths.db);
  const secrets = { env, secretsDir: paths.secrets, profile: config.fermix_core?.profile };
  const review = createReviewRunner({
    db,
    // Only a review reaches the model; restore and revisions work without a provider configured.
    routes: () => resolveRoutes(config, env, secrets),
    // Counted in the usage ledger (kind memory_review) like the daemon's review: the owner pays for it either way.
    router: meterAppRouter(
      { wires: WIRES, fetch, now: Date.now },
      { db: () => db, config: () => config, now: Date.now, log: createLog({ file: paths.logFile }).withTag("usage") },
    ),
    paths: { userMd: paths.promptFiles.user, memoryMd: paths.promptFiles.memory },
    settings: reviewSettings(config.fermix_core?.memory),
  });
  return { review, close: () => db.close() };
}

async function review(now: boolean): Promise<number> {
  const { review, close } = await localReview();
  try {
    const report = await (now ? review.runNow() : review.maybeRun());
    if (report.status === "failed") throw new FermixError("review_failed", `memory review: ${report.error}`);
    await writeOut(renderReport(report));
    return EXIT.ok;
  } finally {
    close();
  }
}

async function restore(id: number): Promise<number> {
  const { review, close } = await localReview();
  try {
    const revision = review.restore(id);
    await writeOut(
      `restored ${revision.name} from ${revision.reason.replace("restored ", "")} (now revision ${revision.revision}, rev_${revision.id})\n`,
    );
    return EXIT.ok;
  } finally {
    close();
  }
}

async function revisions(name: string | undefined): Promise<number> {
  const { review, close } = await localReview();
  try {
    await writeOut(renderRevisions(review.listRevisions(name)));
    return EXIT.ok;
  } finally {
    close();
  }
}

/** Revisions are shown as rev_<n>; the bare number is accepted too. */
export function parseRevisionId(text: string): number {
  const match = /^(?:rev_)?([1-9][0-9]{0,15})$/.exec(text);
  if (!match)
    throw UsageError(`memory restore: "${text}" is not a revision id (like rev_12; see fermix memory revisions)`);
  return Number(match[1]);
}

export function renderReport(report: Exclude<ReviewReport, { status: "failed" }>): string {
  if (report.status === "skipped") {
    const next = report.nextAt ? `; next one due ${minute(report.nextAt)} (use --now to run it anyway)` : "";
    return `memory review skipped: ${report.reason}${next}\n`;
  }
  const list = (keys: string[]) => (keys.length ? ` (${keys.join(", ")})` : "");
  let text = `memory review: ${report.facts} facts reviewed; ${report.replaced.length} replaced${list(report.replaced)}, ${report.retired.length} retired${list(report.retired)}\n`;
  for (const f of report.files) text += `wrote ${f.name} (revision ${f.revision}, rev_${f.revisionId})\n`;
  if (!report.files.length) text += "USER.md and MEMORY.md were already up to date\n";
  return text;
}

export function renderRevisions(rows: RevisionSummary[]): string {
  if (!rows.length) return "no revisions recorded yet (the first memory review records them)\n";
  const lines = rows.map((r) => {
    const id = `rev_${r.id}`.padEnd(9);
    const name = r.name.padEnd(22);
    return `${id} ${name} ${String(r.revision).padStart(3)}  ${minute(r.createdAt)}  ${r.reason}${r.current ? "  (current)" : ""}`;
  });
  return `${"ID".padEnd(9)} ${"FILE".padEnd(22)} REV  WHEN              REASON\n${lines.join("\n")}\n`;
}

function minute(ms: number): string {
  return new Date(ms).toISOString().slice(0, 16).replace("T", " ");
}
