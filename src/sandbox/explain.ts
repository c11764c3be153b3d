import type { IsolationInfo } from "./isolation.ts";
import { describeRoots, type Judgement, judgePath } from "./path-guard.ts";
import type { SandboxContext } from "./sandbox-context.ts";
import type { SandboxCaller } from "./types.ts";

/** `fermix sandbox explain PATH`: every step of the judgement, in words. */
export function explainPath(
  ctx: SandboxContext,
  input: string,
  caller: SandboxCaller,
  isolation: IsolationInfo,
): string {
  const read = judgePath(ctx, input, "read", caller);
  const write = judgePath(ctx, input, "write", caller);
  const who = `${caller.local ? "local" : "remote"} ${caller.trust}${caller.cwd ? ` (cwd ${caller.cwd})` : ""}`;
  const lines = [`${input} — ${ctx.mode} mode, ${who}`];
  if (read.base) lines.push(`  relative, so resolved against ${read.base}`);
  if (read.resolved) {
    const via = read.resolved.leafLink
      ? ` (${read.resolved.leafLink} is a symbolic link)`
      : read.resolved.crossedLink
        ? " (through a symbolic link)"
        : "";
    const missing = read.resolved.stat ? "" : " — does not exist yet";
    lines.push(`  canonical path: ${read.resolved.path}${via}${missing}`);
  }
  lines.push(`  roots: ${describeRoots(ctx, read.roots, caller)}`);
  lines.push(`  read: ${verdict(read)}`, `  write: ${verdict(write)}`);
  lines.push(`  commands run with isolation "${isolation.isolation}": ${isolation.note}`);
  return lines.join("\n");
}

function verdict(j: Judgement): string {
  if (j.verdict.ok) return `allowed (inside ${j.root})`;
  return `denied [${j.verdict.code}] ${j.verdict.reason}`;
}
