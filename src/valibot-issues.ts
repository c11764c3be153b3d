import type * as v from "valibot";

/**
 * Unions report one issue per branch; the branch that got furthest into the input names the real
 * mistake. Shared by config.toml and plugin.json error rendering.
 */
export function deepestIssue(issue: v.BaseIssue<unknown>): v.BaseIssue<unknown> {
  if (!issue.issues?.length) return issue;
  let best = issue;
  for (const inner of issue.issues) {
    const candidate = deepestIssue(inner);
    if ((candidate.path?.length ?? 0) > (best.path?.length ?? 0)) best = candidate;
  }
  return best;
}
