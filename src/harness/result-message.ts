import { type HarnessRun, VENDOR_LABEL } from "./harness-types.ts";

/** The sentence a finished run is reported with: the vendor's own final message when there is one. */
export function resultMessage(run: HarnessRun): string {
  const label = VENDOR_LABEL[run.vendor];
  const minutes = run.completedAt ? Math.max(1, Math.round((run.completedAt - run.startedAt) / 60_000)) : undefined;
  const took = minutes ? ` after ${minutes} min` : "";
  const answer = run.finalMessage?.trim();
  switch (run.status) {
    case "completed":
      return `Coding run ${run.id} (${label} in ${run.cwd}) finished${took}.\n\n${answer || "(it gave no final message)"}`;
    case "cancelled":
      return `Coding run ${run.id} (${label} in ${run.cwd}) was cancelled${took}.`;
    case "interrupted":
      return `Coding run ${run.id} (${label} in ${run.cwd}) was interrupted: ${run.error ?? "fermix stopped"}.`;
    default:
      return `Coding run ${run.id} (${label} in ${run.cwd}) failed${run.failureTag ? ` [${run.failureTag}]` : ""}${took}: ${run.error ?? "no reason given"}${answer ? `\n\nIts last message:\n${answer}` : ""}`;
  }
}
