import type { AnyTool, Caller, PolicyClass } from "./tool.ts";

/**
 * A guest gets read-only chat. What returns the owner's own data (workspace and job reads) is excluded
 * as firmly as what acts (exec, network, writes): never in the prompt, on the wire, or dispatchable.
 */
const GUEST_CLASSES: ReadonlySet<PolicyClass> = new Set(["meta"]);

export function mayUse(tool: AnyTool, caller: Caller): boolean {
  if (caller.trust === "guest" && !GUEST_CLASSES.has(tool.policy)) return false;
  if (tool.attendedOperatorOnly && (caller.trust !== "operator" || !caller.attended)) return false;
  return true;
}
