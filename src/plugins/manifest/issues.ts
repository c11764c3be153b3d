import type * as v from "valibot";
import { deepestIssue } from "../../valibot-issues.ts";

/**
 * One problem with a plugin, in words an author can act on.
 * `path` is a manifest field such as `tools[2].request.url`, or — when `file` is set — a path inside the
 * plugin directory such as `skills/notes/SKILL.md` (then the problem is with the files, not a field).
 */
export type ManifestIssue = { path: string; message: string; file?: true };

export type ValidationResult<T> = { ok: true; manifest: T } | { ok: false; errors: ManifestIssue[] };

type PathKey = string | number;

/** `["tools", 2, "request", "url"]` → `tools[2].request.url`. */
export function joinPath(keys: readonly PathKey[]): string {
  let out = "";
  for (const key of keys) {
    if (typeof key === "number") out += `[${key}]`;
    else out += out ? `.${key}` : key;
  }
  return out;
}

/** A value as the author wrote it, short enough for one line. */
export function shown(value: unknown): string {
  if (value === undefined) return "nothing";
  const json = JSON.stringify(value) ?? String(value);
  return json.length > 60 ? `${json.slice(0, 57)}…` : json;
}

type Issue = v.BaseIssue<unknown>;

/** Every valibot issue as a ManifestIssue. Variants and unions nest one issue per branch; the deepest names the mistake. */
export function fromValibot(issues: readonly Issue[]): ManifestIssue[] {
  const out: ManifestIssue[] = [];
  for (const issue of issues) {
    const deepest = deepestIssue(issue);
    const keys = (deepest.path ?? []).map((p) => p.key as PathKey);
    out.push({ path: joinPath(keys), message: describe(deepest) });
  }
  return dedupe(out);
}

function describe(issue: Issue): string {
  if (issue.type === "strict_object" && issue.expected === "never") {
    return "unknown key (remove it, or check its spelling)";
  }
  // valibot reports a missing key with the key's name as "expected", which says nothing new.
  if (issue.input === undefined) return "is required";
  const predicate = issue.message.startsWith("Invalid")
    ? `must be ${issue.expected ?? "a different value"}`
    : issue.message;
  return `${predicate} (got ${shown(issue.input)})`;
}

function dedupe(issues: ManifestIssue[]): ManifestIssue[] {
  const seen = new Set<string>();
  return issues.filter((i) => {
    const key = `${i.path}\0${i.message}`;
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
}
