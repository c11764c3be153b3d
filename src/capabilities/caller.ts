import type { SandboxCaller } from "../sandbox/types.ts";

// The trust vocabulary every part speaks (jobs record a creator's trust, skills are read at a trust, the sandbox
// and the registry decide by it), kept in a leaf so that none of them has to import the tool machinery.

export type Trust = "operator" | "guest";

/**
 * What a tool can touch. The trust level decides which classes a caller may use at all:
 * a guest gets read-only chat, without the owner's workspace, exec, network or job data.
 */
export type PolicyClass =
  | "meta" // about the tools themselves (tool_help)
  | "workspace_read" // reads the owner's files and repos
  | "workspace_write"
  | "exec"
  | "network"
  | "job_read"
  | "job_write"
  | "approval" // asks the owner for something (directory access)
  | "delegation" // starts other agents (subagents)
  | "memory_read" // recalls facts and history; the memory scope rules bound a guest to its own conversation
  | "memory_write" // stores facts, into the caller's own scope
  | "plugin" // a plugin's tool: an external account or service the owner connected
  | "external_api"; // an owner-configured MCP server's tool ([mcp.servers]): whatever that server reaches

/** The caller of a turn, as far as tools are concerned. */
export type Caller = SandboxCaller & {
  /** A person is waiting on this turn (CLI, chat), as opposed to a scheduled job. */
  attended: boolean;
  /** Set for a scheduled run: the job it runs (its memory scope, and no job may create another). */
  jobId?: string;
};
