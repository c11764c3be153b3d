import { createHash } from "node:crypto";
import { readdir, readFile } from "node:fs/promises";
import { join } from "node:path";

/**
 * The tree digest: sha256 over `path NUL sha256(content) LF` for every regular file, sorted by path (UTF-16
 * code units, which is what a plain JS sort gives). Directories and modes are not part of it, so two archives
 * with the same files in a different order or with different directory entries have the same digest.
 */
export function treeDigest(files: Iterable<readonly [path: string, sha256: string]>): string {
  const sorted = [...files].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  const hash = createHash("sha256");
  for (const [path, digest] of sorted) hash.update(`${path}\0${digest}\n`);
  return hash.digest("hex");
}

/** Recomputes the digest of an extracted tree, to check it still is what was verified at install time. */
export async function treeDigestOfDir(root: string): Promise<string> {
  const files: [string, string][] = [];
  const walk = async (rel: string) => {
    for (const entry of await readdir(join(root, rel), { withFileTypes: true })) {
      const path = rel ? `${rel}/${entry.name}` : entry.name;
      if (entry.isDirectory()) await walk(path);
      else
        files.push([
          path,
          createHash("sha256")
            .update(await readFile(join(root, path)))
            .digest("hex"),
        ]);
    }
  };
  await walk("");
  return treeDigest(files);
}
