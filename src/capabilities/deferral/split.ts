import type { AnyTool } from "../tool.ts";
import { sameTools } from "./_catalog.ts";
import { BRIDGES } from "./bridges.ts";

export type SplitOptions = {
  /** `[fermix_core.tools.tool_search] enabled`, absent meaning true; false is the kill switch. */
  enabled: boolean;
  /** Plugin and MCP tools, and the situational built-ins (`deferrable`), are deferrable. */
  isDeferrable: (tool: AnyTool) => boolean;
  /** A tool's size on the wire; when given, deferral happens only where it saves more than the bridges cost. */
  weigh?: (tool: AnyTool) => number;
};

export type SplitSurface = {
  /** What goes on the provider wire: every non-deferred tool, plus the bridges when anything was deferred. */
  sent: AnyTool[];
  /** The tools whose schemas stay off the wire; they are reachable through the bridges and by name. */
  deferred: AnyTool[];
  /**
   * `sent`, `deferred`, then the unadvertised tools: the context's `surface()`, so a direct call of a deferred or
   * unadvertised tool still dispatches.
   */
  callable: AnyTool[];
};

/**
 * Splits one caller's surface for a turn. Only the provider request leaves deferred tools out: dispatch,
 * the system prompt's tool names and policy all keep working from `callable`.
 */
export function splitSurface(surface: readonly AnyTool[], opts: SplitOptions): SplitSurface {
  // Loops rather than filter/map: JSC runs its array builtins as cold JavaScript in a one-shot process, where this
  // runs once (measured in a profile of `fermix ask`: a few tenths of a millisecond).
  // An unadvertised tool is neither sent nor deferred (so neither named nor searchable), only dispatchable.
  const all: AnyTool[] = [];
  const quiet: AnyTool[] = [];
  for (const t of surface) (t.unadvertised === true ? quiet : all).push(t);
  const whole = { sent: all, deferred: [], callable: quiet.length ? [...all, ...quiet] : all };
  if (!opts.enabled) return whole;
  const deferred: AnyTool[] = [];
  for (const t of all) if (!BRIDGES.includes(t) && opts.isDeferrable(t)) deferred.push(t);
  // Bridges over an empty catalog would only cost tokens and invite useless searches; over a couple of small
  // tools (a guest's) they would cost more than they save.
  if (!deferred.length) return whole;
  const weigh = opts.weigh;
  if (weigh && !outweighs(deferred, BRIDGES, weigh)) return whole;
  const moved = new Set(deferred);
  const sent: AnyTool[] = [];
  for (const t of all) if (!moved.has(t)) sent.push(t);
  for (const b of BRIDGES) if (!all.includes(b)) sent.push(b);
  return { sent, deferred, callable: [...sent, ...deferred, ...quiet] };
}

// A daemon's turns offer, almost always, the very same tools as the one before.
let last: { surface: readonly AnyTool[]; opts: SplitOptions; split: SplitSurface } | undefined;

/**
 * splitSurface, or the previous call's split when this call's surface is the very same tool objects in the same
 * order and its options the same values and functions (a split depends on nothing else: deferrability and weight
 * are the tools' own). The turn calls it each time it builds its shape; a turn's shape never mutates a split.
 */
export function splitSurfaceReusing(surface: readonly AnyTool[], opts: SplitOptions): SplitSurface {
  if (
    last &&
    last.opts.enabled === opts.enabled &&
    last.opts.isDeferrable === opts.isDeferrable &&
    last.opts.weigh === opts.weigh &&
    sameTools(last.surface, surface)
  ) {
    return last.split;
  }
  const split = splitSurface(surface, opts);
  last = { surface: [...surface], opts: { ...opts }, split };
  return split;
}

/** Whether `tools` weigh more than `than`; stops weighing (each weight is a schema render) once they do. */
function outweighs(tools: readonly AnyTool[], than: readonly AnyTool[], weigh: (tool: AnyTool) => number): boolean {
  let limit = 0;
  for (const t of than) limit += weigh(t);
  let total = 0;
  for (const tool of tools) {
    total += weigh(tool);
    if (total > limit) return true;
  }
  return false;
}
