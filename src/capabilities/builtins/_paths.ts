import type { Denial } from "../../sandbox/types.ts";
import type { ToolContext, ToolResult } from "../tool.ts";

/** A sandbox refusal as the model sees it: the reason, and for paths outside the roots, the way to ask. */
export function denied(denial: Denial, ctx: ToolContext): ToolResult {
  // Every refusal of every built-in passes here, so here is where the trace of it is written.
  ctx.trace?.traces.write("sandbox_event", {
    session_id: ctx.trace.sessionId,
    event: "denied",
    code: denial.code,
    ...(denial.path ? { path: denial.path } : {}),
  });
  const canAsk = denial.code === "outside_roots" && ctx.surface().some((t) => t.name === "request_directory_access");
  const hint = canAsk
    ? " If this directory is really needed, call request_directory_access with the path and why."
    : "";
  return { isError: true, content: `Denied: ${denial.reason}${hint}` };
}

/** Where a tool works when it is given no directory: the caller's cwd when it is allowed, else the workspace. */
export async function defaultDirectory(ctx: ToolContext): Promise<string> {
  const cwd = ctx.caller.cwd;
  if (cwd && (await ctx.sandbox.checkPath(cwd, "read", ctx.caller)).ok) return cwd;
  return ctx.sandbox.roots(ctx.caller)[0]!;
}
