import { bun, nodeModule, onBun } from "./host.ts";

/** Whether a relative path matches a glob (`**`, `*`, `?`, `{a,b}`, `[...]`). */
export function globMatcher(pattern: string): (path: string) => boolean {
  if (onBun) {
    const glob = new (bun().Glob)(pattern);
    return (path) => glob.match(path);
  }
  const { matchesGlob } = nodeModule<typeof import("node:path")>("node:path");
  // Bun's match treats a leading dot like any other character ("**/*.md" takes ".github/x.md"); Node's
  // skips dot entries, with no option to say otherwise. A second try with each leading dot masked by a
  // character no path holds matches what Bun does; the first keeps patterns that name the dot.
  const undotted = (path: string) => path.replace(/(^|\/)\./g, "$1\u0000");
  return (path) => matchesGlob(path, pattern) || matchesGlob(undotted(path), pattern);
}

/**
 * The files under `cwd` matching a glob, as paths relative to it, without following symlinks. Dot
 * entries are skipped unless `dot` (Deno's node:fs glob skips them whatever the flag says).
 */
export async function* globFiles(pattern: string, opts: { cwd: string; dot: boolean }): AsyncGenerator<string> {
  if (onBun) {
    yield* new (bun().Glob)(pattern).scan({ cwd: opts.cwd, onlyFiles: true, followSymlinks: false, dot: opts.dot });
    return;
  }
  const { glob } = nodeModule<typeof import("node:fs/promises")>("node:fs/promises");
  const { join, relative } = nodeModule<typeof import("node:path")>("node:path");
  for await (const entry of glob(pattern, { cwd: opts.cwd, withFileTypes: true })) {
    if (entry.isFile()) yield relative(opts.cwd, join(entry.parentPath, entry.name));
  }
}
