import type { Caller, PolicyClass } from "./caller.ts";
import type { AnyTool } from "./tool.ts";

/**
 * A guest gets read-only chat. What returns the owner's own data (workspace and job reads) is excluded
 * as firmly as what acts (exec, network, writes): never in the prompt, on the wire, or dispatchable.
 * Memory is the exception that proves it: a guest may recall and store, because the memory scope rules
 * (memory/recall-scope.ts) force both into the guest's own conversation. memory_sources_list reveals
 * what the owner stored, so it is a workspace read. Job writes are the same kind of exception: a guest may
 * schedule and manage jobs, because job-operations shows a guest only the jobs it made in its own
 * conversation, a job runs at its creator's trust, and allowed_tools can only name tools the caller has.
 * Job reads (list_jobs, list_job_runs, get_job_run) stay the owner's.
 */
const GUEST_CLASSES: ReadonlySet<PolicyClass> = new Set(["meta", "memory_read", "memory_write", "job_write"]);

export function mayUse(tool: AnyTool, caller: Caller): boolean {
  if (caller.trust === "guest" && !GUEST_CLASSES.has(tool.policy)) return false;
  if (tool.attendedOperatorOnly && (caller.trust !== "operator" || !caller.attended)) return false;
  // Someone must be waiting in the chat: a job or a subagent never sends files or reacts on its own.
  if (tool.forChannel && !caller.attended) return false;
  return true;
}
