import type { ExecResult } from "../../sandbox/types.ts";
import type { ToolResult } from "../tool.ts";

/** A finished command as the model reads it: exit status first, then each stream that has output. */
export function formatExec(result: ExecResult, label: string): ToolResult {
  const head = result.timedOut
    ? `${label} timed out and its process group was killed`
    : `${label} exited with code ${result.exitCode ?? "unknown"}`;
  const parts = [head];
  if (result.stdout) parts.push(`--- stdout ---\n${result.stdout.trimEnd()}`);
  if (result.stderr) parts.push(`--- stderr ---\n${result.stderr.trimEnd()}`);
  if (result.truncated) parts.push("[output cut at the size limit]");
  return { content: parts.join("\n"), isError: result.timedOut };
}
