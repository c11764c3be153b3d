/**
 * Finds the reference file a caller means among a skill's own files. Only names from that list can come
 * out, so `../../config.toml` or an absolute path never reaches a read: it simply matches nothing.
 * Accepted spellings, in order: the exact relative path (`reference/plugins.md`), the same without
 * `.md`, then the bare file name with or without `.md` when exactly one file has it.
 */
export function resolveReference(files: readonly string[], wanted: string): string | undefined {
  const name = wanted.trim().replace(/^\.\//, "");
  if (!name) return undefined;
  const withMd = name.toLowerCase().endsWith(".md") ? name : `${name}.md`;
  const exact = files.find((f) => f === name || f === withMd);
  if (exact) return exact;
  const byBase = files.filter((f) => f.split("/").at(-1) === withMd);
  return byBase.length === 1 ? byBase[0] : undefined;
}
