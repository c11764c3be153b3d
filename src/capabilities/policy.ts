import type { AnyTool, Caller, PolicyClass } from "./tool.ts";

/**
 * A guest gets read-only chat. What returns the owner's own data (workspace and job reads) is excluded
 * as firmly as what acts (exec, network, writes): never in the prompt, on the wire, or dispatchable.
 * Memory is the exception that proves it: a guest may recall and store, because the memory scope rules
 * (memory/recall-scope.ts) force both into the guest's own conversation. memory_sources_list reveals
 * what the owner stored, so it is a workspace read.
 */
const GUEST_CLASSES: ReadonlySet<PolicyClass> = new Set(["meta", "memory_read", "memory_write"]);

export function mayUse(tool: AnyTool, caller: Caller): boolean {
  if (caller.trust === "guest" && !GUEST_CLASSES.has(tool.policy)) return false;
  if (tool.attendedOperatorOnly && (caller.trust !== "operator" || !caller.attended)) return false;
  return true;
}
