import ULTRA_ADDENDUM from "./ultra-addendum.md" with { type: "text" };

/**
 * How wide a turn may fan out. A normal turn is the default; `ultra` is what /ultra tags a turn with: the same
 * turn loop, with wider subagent caps and an exhaustive-mode addendum to the system prompt (spec: /ultra is a
 * run-mode of the normal turn, not a separate orchestrator).
 */
export type RunProfile = "ultra";

export type SubagentCaps = {
  /** Tasks in one `subagents` call. */
  maxTasks: number;
  /** Subagents running at once. */
  maxConcurrency: number;
  defaultConcurrency: number;
  /** Model calls per subagent. */
  iterationLimit: number;
};

const NORMAL: SubagentCaps = { maxTasks: 10, maxConcurrency: 8, defaultConcurrency: 4, iterationLimit: 100 };
// The spec's numbers: up to ~50 narrow probes, at most 12 at once, each with less depth than a regular
// subagent (they stay brief by instruction; the lower ceiling only bounds a runaway probe).
const ULTRA: SubagentCaps = { maxTasks: 50, maxConcurrency: 12, defaultConcurrency: 12, iterationLimit: 30 };

export function subagentCaps(profile?: RunProfile): SubagentCaps {
  return profile === "ultra" ? ULTRA : NORMAL;
}

/** What the system prompt gains in a turn of this profile (nothing for a normal turn). */
export function profileAddendum(profile?: RunProfile): string | undefined {
  return profile === "ultra" ? ULTRA_ADDENDUM.trim() : undefined;
}
