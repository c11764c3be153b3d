import { isAbsolute, relative } from "node:path";

/**
 * Containment by `path.relative`, never by string prefix: `/w/root-evil` is not inside `/w/root`.
 * Both paths must already be canonical; a path counts as inside itself.
 */
export function isWithin(path: string, root: string): boolean {
  const rel = relative(root, path);
  return rel === "" || !(rel === ".." || rel.startsWith("../") || isAbsolute(rel));
}

/** The same test on lower-cased paths, for deny lists that must also catch `.SSH` on a case-insensitive disk. */
export function isWithinFolded(path: string, root: string): boolean {
  return isWithin(path.toLowerCase(), root.toLowerCase());
}

/** `~` and `~/x` name the user's home; `~user` forms are left alone (and end up relative, so judged as such). */
export function expandHome(path: string, home: string): string {
  if (path === "~") return home;
  if (path.startsWith("~/")) return `${home}/${path.slice(2)}`;
  return path;
}

/** Shows a path under the home as `~/…`, which is how people recognise `~/.ssh`. */
export function tildify(path: string, home: string): string {
  if (path === home) return "~";
  return isWithin(path, home) ? `~/${relative(home, path)}` : path;
}
