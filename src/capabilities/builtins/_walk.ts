import { readdir } from "node:fs/promises";
import { join, relative } from "node:path";

/** Directories no search should wander into unless asked: VCS internals and dependency trees. */
export const SKIPPED_DIRS = new Set([".git", "node_modules", ".hg", ".svn", "__pycache__", ".venv", "target", "dist"]);

/**
 * Lists regular files under `root` without following symlinks (a link could lead out of the roots),
 * stopping after `limit`. Paths come back relative to root.
 */
export async function* walkFiles(root: string, opts: { limit: number; signal?: AbortSignal }): AsyncGenerator<string> {
  let yielded = 0;
  const stack = [root];
  while (stack.length) {
    if (opts.signal?.aborted) return;
    const dir = stack.pop()!;
    let entries: import("node:fs").Dirent[];
    try {
      entries = await readdir(dir, { withFileTypes: true });
    } catch {
      continue;
    }
    entries.sort((a, b) => (a.name < b.name ? 1 : -1));
    for (const entry of entries) {
      const path = join(dir, entry.name);
      if (entry.isDirectory()) {
        if (!SKIPPED_DIRS.has(entry.name)) stack.push(path);
      } else if (entry.isFile()) {
        yield relative(root, path);
        if (++yielded >= opts.limit) return;
      }
    }
  }
}
