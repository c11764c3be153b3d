import { type Dirent, existsSync, readdirSync } from "node:fs";
import { join } from "node:path";
import { isWithin } from "./_path.ts";
import { canonicalize } from "./canonical.ts";

/**
 * The jail for commands on Linux. The whole filesystem is visible read-only (toolchains, /usr, dotfiles
 * a build reads), /tmp is private, the roots are bound writable, and credentials are masked so they
 * cannot be read. The network stays shared: the shell tool is the operator's, and `git push` or
 * `npm install` from it is expected; the network policy for tools lives in src/net/, not here.
 */
export type Mask = { path: string; kind: "dir" | "file" };
export type BubblewrapPlan = {
  /** Paths bound read-write, parents before children. */
  writable: string[];
  /** Existing paths hidden: an empty read-only tmpfs over a directory, /dev/null over anything else. */
  masks: Mask[];
};

/** Secrets of the system itself and the per-user sockets (agent, keyring, session bus) under /run/user. */
const SYSTEM_MASKS = ["/etc/shadow", "/etc/gshadow", "/etc/sudoers", "/etc/sudoers.d", "/run/user"];

/**
 * Works out the mounts for these roots. A root with a protected path somewhere below it (the home in
 * open mode holds ~/.ssh and FERMIX_HOME) is not bound whole: its children are bound one by one, skipping
 * the protected ones, so a protected path cannot be written even when it does not exist yet. The cost is
 * that new entries directly in such a directory cannot be created from a command.
 */
export function planBubblewrap(opts: {
  roots: string[];
  /** Paths that must be neither writable nor readable: credentials, FERMIX_HOME, blocked roots. */
  denied: string[];
  /** Whether a path is denied (the protected-path rules, which know FERMIX_HOME's workspace exception). */
  isDenied: (path: string) => boolean;
}): BubblewrapPlan {
  const writable: string[] = [];
  for (const root of [...opts.roots].sort((a, b) => a.length - b.length)) {
    // A granted root may not exist yet; bwrap refuses to bind a missing source, so it is left out.
    if (existsSync(root)) bindWritable(root, opts, writable);
  }
  const masks: Mask[] = [];
  for (const path of [...opts.denied, ...SYSTEM_MASKS]) {
    // A credential directory that is a link (dotfile managers do this) is masked where it leads.
    const resolved = canonicalize(path);
    if (!resolved.ok || !resolved.stat) continue;
    if (masks.some((m) => m.path === resolved.path)) continue;
    masks.push({ path: resolved.path, kind: resolved.stat.isDirectory() ? "dir" : "file" });
  }
  return { writable: [...new Set(writable)], masks };
}

function bindWritable(path: string, opts: { denied: string[]; isDenied: (p: string) => boolean }, out: string[]) {
  if (opts.isDenied(path)) return;
  if (!opts.denied.some((d) => d !== path && isWithin(d.toLowerCase(), path.toLowerCase()))) {
    out.push(path);
    return;
  }
  let entries: Dirent[];
  try {
    entries = readdirSync(path, { withFileTypes: true });
  } catch {
    return;
  }
  for (const entry of entries) {
    // Links stay visible read-only through `/`; binding one would make wherever it points writable.
    if (!entry.isDirectory() && !entry.isFile()) continue;
    bindWritable(join(path, entry.name), opts, out);
  }
}

/** The bwrap command line for a plan. Order matters: later mounts cover earlier ones. */
export function bubblewrapArgv(bwrap: string, plan: BubblewrapPlan, cwd: string, command: string[]): string[] {
  const maskedDirs = plan.masks.filter((m) => m.kind === "dir").map((m) => m.path);
  const insideMask = (p: string) => maskedDirs.some((dir) => isWithin(p, dir) && p !== dir);
  const argv = [bwrap, "--ro-bind", "/", "/", "--dev", "/dev", "--proc", "/proc", "--tmpfs", "/tmp"];
  for (const path of plan.writable) argv.push("--bind", path, path);
  for (const mask of plan.masks) {
    if (mask.kind === "dir") argv.push("--tmpfs", mask.path);
    else argv.push("--ro-bind", "/dev/null", mask.path);
  }
  // A root inside a masked directory (the workspace inside FERMIX_HOME) is bound again on top of the mask,
  // before the mask turns read-only (bwrap creates its mount point in the tmpfs).
  for (const path of plan.writable.filter(insideMask)) argv.push("--bind", path, path);
  for (const dir of maskedDirs) argv.push("--remount-ro", dir);
  argv.push("--unshare-all", "--share-net", "--die-with-parent", "--new-session", "--chdir", cwd, "--", ...command);
  return argv;
}
