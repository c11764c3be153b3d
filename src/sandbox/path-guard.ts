import { dirname, isAbsolute } from "node:path";
import { expandHome, isWithin } from "./_path.ts";
import { type Canonical, canonicalize } from "./canonical.ts";
import { judgeGrant } from "./grantable.ts";
import { callerRoots, rootOf } from "./roots.ts";
import type { SandboxContext } from "./sandbox-context.ts";
import type { Access, Denial, DenialCode, PathVerdict, SandboxCaller } from "./types.ts";

/** Linux's PATH_MAX; a longer path is a mistake or an attack, never a file. */
const MAX_PATH = 4096;

/** A verdict with what led to it, for `explain`. */
export type Judgement = {
  verdict: PathVerdict;
  roots: string[];
  /** What a relative input was resolved against. */
  base?: string;
  resolved?: Canonical;
  root?: string;
};

/**
 * Canonicalises `input` and judges it for this caller. Order matters: protected and blocked paths lose
 * even inside a root, so they are checked first; a link at the final component is judged twice, once
 * where it sits and once where it leads, and refused as `symlink` when only its target is out of bounds.
 */
export function judgePath(ctx: SandboxContext, input: string, access: Access, caller: SandboxCaller): Judgement {
  const roots = callerRoots(ctx, caller);
  if (typeof input !== "string" || input.length === 0) return { roots, verdict: invalid("the path is empty") };
  if (input.includes("\0")) return { roots, verdict: invalid("the path contains a NUL byte") };
  if (input.length > MAX_PATH) return { roots, verdict: invalid(`the path is longer than ${MAX_PATH} characters`) };

  const expanded = expandHome(input, ctx.home);
  const base = isAbsolute(expanded) ? undefined : relativeBase(ctx, roots, caller);
  // Concatenated, not path.join'ed: a lexical `..` shortcut would disagree with the kernel after a link.
  const resolved = canonicalize(base ? `${base}/${expanded}` : expanded);
  if (!resolved.ok) return { roots, base, verdict: invalid(resolved.reason) };

  const judgement = { roots, base, resolved };
  const path = resolved.path;
  if (resolved.leafLink) {
    const before = resolved.links.slice(0, resolved.links.indexOf(resolved.leafLink));
    const linkDenial = placeDenial(ctx, roots, caller, resolved.leafLink, before);
    if (linkDenial) return { ...judgement, verdict: linkDenial };
  }
  const denial = placeDenial(ctx, roots, caller, path, resolved.links) ?? accessDenial(resolved, access, roots);
  if (denial) {
    if (!resolved.leafLink) return { ...judgement, verdict: denial };
    const inner = denial.reason.replace(`${path} `, "it ");
    return {
      ...judgement,
      verdict: deny("symlink", resolved.leafLink, `${resolved.leafLink} is a symbolic link to ${path}; ${inner}`),
    };
  }
  return { ...judgement, root: rootOf(roots, path), verdict: { ok: true, path } };
}

/** Relative paths resolve against the caller's cwd when that is inside the caller's roots, else the workspace. */
function relativeBase(ctx: SandboxContext, roots: string[], caller: SandboxCaller): string {
  if (caller.cwd && isAbsolute(caller.cwd)) {
    const cwd = canonicalize(caller.cwd);
    if (cwd.ok && cwd.stat?.isDirectory() && rootOf(roots, cwd.path)) return cwd.path;
  }
  return ctx.workspace;
}

/** Denials that depend only on where a path is: protected, blocked, outside the roots. */
function placeDenial(
  ctx: SandboxContext,
  roots: string[],
  caller: SandboxCaller,
  path: string,
  links: string[],
): Denial | null {
  // The path itself first, so the reason names the rule that covers it rather than a step on the way.
  for (const step of [path, ...links]) {
    const hit = ctx.protected.check(step, step === path);
    if (hit) {
      const via = step === path ? "" : ` (reached through the link ${step})`;
      return deny(
        "protected",
        path,
        `${path} is protected${via}: ${hit.reason}. It is never readable or writable by tools, in any mode.`,
      );
    }
  }
  for (const step of [path, ...links]) {
    const blocked = ctx.blocked.find((b) => isWithin(step, b));
    if (blocked) {
      return deny(
        "blocked",
        path,
        `${path} is inside ${blocked}, which [sandbox] blocked_roots in ${ctx.configFile} closes to tools.`,
      );
    }
  }
  if (!rootOf(roots, path)) return outsideRoots(ctx, roots, caller, path);
  return null;
}

function accessDenial(resolved: Canonical, access: Access, roots: string[]): Denial | null {
  const { path, stat } = resolved;
  if (access === "read") return stat ? null : deny("not_found", path, `${path} does not exist.`);
  if (stat?.isFile() && stat.nlink > 1) {
    return deny(
      "hardlink",
      path,
      `${path} has ${stat.nlink} hard links, so writing it would also change the other copies, which may be outside the sandbox. Write a new file instead.`,
    );
  }
  if (stat && !stat.isFile() && !stat.isDirectory()) {
    return deny("invalid", path, `${path} is not a regular file or directory.`);
  }
  // Missing parents are created by the write; all of them must lie inside a root (a root may be created).
  if (resolved.firstMissing && !rootOf(roots, resolved.firstMissing)) {
    return deny(
      "outside_roots",
      path,
      `writing ${path} would create ${resolved.firstMissing}, which is outside the sandbox roots.`,
    );
  }
  return null;
}

function outsideRoots(ctx: SandboxContext, roots: string[], caller: SandboxCaller, path: string): Denial {
  const listed = describeRoots(ctx, roots, caller);
  const dir = canonicalize(path);
  const suggestion = dir.ok && dir.stat?.isDirectory() ? path : dirname(path);
  const grant = judgeGrant(ctx, suggestion, { requireDirectory: false });
  const next = grant.ok
    ? `grant it with \`fermix grant path ${grant.path}\` or ask for access`
    : `${suggestion} can't be granted, so move what is needed into a root or ask the owner`;
  return deny("outside_roots", path, `${path} is outside the sandbox roots (${listed}); ${next}.`);
}

/** "workspace /w; granted /a, /b; current directory /c" — how people recognise which root is which. */
export function describeRoots(ctx: SandboxContext, roots: string[], caller: SandboxCaller): string {
  const granted = roots.filter((r) => ctx.granted.includes(r) && r !== ctx.workspace);
  const parts = [`workspace ${ctx.workspace}`, `granted ${granted.length ? granted.join(", ") : "none"}`];
  for (const root of roots) {
    if (root === ctx.workspace || ctx.granted.includes(root)) continue;
    parts.push(root === ctx.home ? `home ${root} (open mode)` : `current directory ${root}`);
  }
  if (ctx.mode === "open" && caller.trust !== "operator") parts.push("guests never get the home");
  return parts.join("; ");
}

function deny(code: DenialCode, path: string, reason: string): Denial {
  return { ok: false, code, path, reason };
}

function invalid(reason: string): Denial {
  return { ok: false, code: "invalid", reason: `${reason}.` };
}
