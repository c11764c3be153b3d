import { lstatSync, readlinkSync, type Stats } from "node:fs";
import { dirname } from "node:path";

/** Linux's own limit on links followed in one lookup (MAXSYMLINKS). */
const MAX_LINKS = 40;

export type Canonical = {
  ok: true;
  /** The physical path: no `.`, `..` or symbolic link left in it. */
  path: string;
  /** lstat of the final component when it exists. */
  stat?: Stats;
  /** Where each link followed on the way sits, in order. The deny lists judge these too, or a protected
   * name that is itself a link (`~/.ssh` → `~/dotfiles/ssh`) would hide the key it leads to. */
  links: string[];
  /** The input named a symbolic link at its final component; `path` is where it leads. */
  leafLink?: string;
  /** Some component on the way was a symbolic link. */
  crossedLink: boolean;
  /** The first directory that does not exist yet, when the path does not exist (what a write must create). */
  firstMissing?: string;
};

export type CanonicalFailure = { ok: false; reason: string };

/**
 * Resolves an absolute path the way the kernel would, one component at a time: a link is replaced by
 * its target and the walk goes on from there, and `..` steps to the physical parent of where the walk
 * already is (never a lexical shortcut, which would disagree with the kernel after a link). Where the
 * path stops existing the rest is appended as written; a `..` in that rest is refused, because what it
 * climbs out of does not exist and the answer would be a guess. Synchronous on purpose: a handful of
 * lstat calls, and the sandbox's roots must be computable without awaiting.
 */
export function canonicalize(absolute: string): Canonical | CanonicalFailure {
  if (!absolute.startsWith("/")) return { ok: false, reason: `${absolute} is not an absolute path` };
  const queue = absolute.split("/");
  const links: string[] = [];
  let current = "/";
  let leafLink: string | undefined;
  let crossedLink = false;
  let stat: Stats | undefined = lstatSync("/");
  while (queue.length > 0) {
    const part = queue.shift()!;
    if (part === "" || part === ".") continue;
    if (part === "..") {
      current = dirname(current);
      stat = lstatSync(current);
      continue;
    }
    if (!stat?.isDirectory()) return { ok: false, reason: `${current} is not a directory` };
    const next = current === "/" ? `/${part}` : `${current}/${part}`;
    const found = lstatOrFailure(next);
    if ("reason" in found) return found;
    if (!found.stat) {
      const rest = [part, ...queue].filter((p) => p !== "" && p !== ".");
      if (rest.includes("..")) {
        return { ok: false, reason: `${next} does not exist, so the ".." after it cannot be resolved` };
      }
      const path = `${current === "/" ? "" : current}/${rest.join("/")}`;
      return { ok: true, path, links, leafLink, crossedLink, firstMissing: next };
    }
    if (found.stat.isSymbolicLink()) {
      links.push(next);
      if (links.length > MAX_LINKS) return { ok: false, reason: `too many symbolic links while resolving ${absolute}` };
      crossedLink = true;
      const isLeaf = queue.every((p) => p === "" || p === ".");
      if (isLeaf && leafLink === undefined) leafLink = next;
      const target = readlinkSync(next);
      if (target.startsWith("/")) {
        current = "/";
        stat = lstatSync("/");
      }
      queue.unshift(...target.split("/"));
      continue;
    }
    current = next;
    stat = found.stat;
  }
  return { ok: true, path: current, stat, links, leafLink, crossedLink };
}

function lstatOrFailure(path: string): { stat: Stats | undefined } | CanonicalFailure {
  try {
    return { stat: lstatSync(path, { throwIfNoEntry: false }) };
  } catch (err: any) {
    if (err?.code === "ENOTDIR") return { stat: undefined };
    if (err?.code === "EACCES") return { ok: false, reason: `permission denied while resolving ${path}` };
    throw err;
  }
}
