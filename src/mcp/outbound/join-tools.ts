import type { AnyTool } from "../../capabilities/tool.ts";

const NONE: readonly AnyTool[] = [];

/**
 * Two live tool lists (the plugins', the `[mcp.servers]`') as one getter that returns the same array while
 * neither changes: a turn recomputes its prompt and tool list only when the array it gets is a new one.
 */
export function joinTools(
  ...sources: Array<(() => readonly AnyTool[]) | undefined>
): (() => readonly AnyTool[]) | undefined {
  const live = sources.filter((s): s is () => readonly AnyTool[] => s !== undefined);
  if (!live.length) return undefined;
  if (live.length === 1) return live[0];
  let last: { parts: readonly (readonly AnyTool[])[]; joined: readonly AnyTool[] } | undefined;
  return () => {
    const parts = live.map((s) => s() ?? NONE);
    if (last && parts.every((p, i) => p === last!.parts[i])) return last.joined;
    last = { parts, joined: parts.flat() };
    return last.joined;
  };
}
