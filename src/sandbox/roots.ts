import { isAbsolute } from "node:path";
import { isWithin } from "./_path.ts";
import { canonicalize } from "./canonical.ts";
import { judgeGrant } from "./grantable.ts";
import type { SandboxContext } from "./sandbox-context.ts";
import type { SandboxCaller } from "./types.ts";

/**
 * The roots a caller may use, workspace first.
 * - strict: the workspace and the granted roots.
 * - standard: strict, plus the caller's cwd when a local operator runs fermix from somewhere under the
 *   home (so `fermix ask` works where it was run, with no project list to keep).
 * - open: strict, plus the whole home (protected paths still lose).
 * Guests get the strict roots in every mode: the mode is the owner's choice for the owner's turns, and a
 * guest's surface has no file tools anyway, so this only narrows what a mistake could reach.
 */
export function callerRoots(ctx: SandboxContext, caller: SandboxCaller): string[] {
  const roots = [ctx.workspace, ...ctx.granted];
  if (caller.trust === "operator") {
    if (ctx.mode === "standard" && caller.local) {
      const cwd = cwdRoot(ctx, caller.cwd);
      if (cwd) roots.push(cwd);
    }
    if (ctx.mode === "open") roots.push(ctx.home);
  }
  return [...new Set(roots)];
}

/** The caller's cwd as a root: an existing directory strictly below the home that could also be granted. */
function cwdRoot(ctx: SandboxContext, cwd: string | undefined): string | null {
  if (!cwd || !isAbsolute(cwd)) return null;
  const resolved = canonicalize(cwd);
  if (!resolved.ok || !resolved.stat?.isDirectory()) return null;
  if (resolved.path === ctx.home || !isWithin(resolved.path, ctx.home)) return null;
  const grant = judgeGrant(ctx, resolved.path, { requireDirectory: true });
  return grant.ok ? grant.path : null;
}

/** The root that holds `path`, preferring the innermost so messages name the most specific one. */
export function rootOf(roots: string[], path: string): string | undefined {
  return roots.filter((root) => isWithin(path, root)).sort((a, b) => b.length - a.length)[0];
}
