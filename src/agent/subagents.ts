import { splitSurface } from "../capabilities/deferral/split.ts";
import type { Registry } from "../capabilities/registry-contract.ts";
import type { AnyTool, ToolContext } from "../capabilities/tool.ts";
import { newSessionId } from "../observability/traces.ts";
import type { RouterDeps } from "../providers/router.ts";
import type { Route, RouteChoice } from "../providers/routes.ts";
import { conversationScope, scopedRouter } from "../usage/meter.ts";
import { failureToError } from "./failure-error.ts";
import { subagentCaps } from "./run-profile.ts";
import { runToolLoop } from "./tool-loop.ts";

// A normal turn's caps; an /ultra turn's are wider (run-profile.ts).
export const SUBAGENT_MAX_TASKS = subagentCaps().maxTasks;
export const SUBAGENT_DEFAULT_CONCURRENCY = subagentCaps().defaultConcurrency;
export const SUBAGENT_MAX_CONCURRENCY = subagentCaps().maxConcurrency;

/**
 * What a subagent may never do, whatever its parent could: ask the owner for access (nobody is watching
 * a subagent), start subagents of its own (skill_run nests, with its own depth cap), or act in the chat.
 */
// The coding harness's run tools too: a run reports back to the chat that started it, which a sub-agent is not.
const NEVER_DELEGATED = new Set([
  "request_directory_access",
  "subagents",
  "send_attachment",
  "react",
  "codex_run",
  "claude_code_run",
  "cancel_coding_run",
  // The owner's screen, mouse and keyboard: only the turn the owner watches may drive them.
  "computer_use",
]);

export type SubagentTask = {
  task: string;
  /** Facts the task needs: a subagent does not see the parent's conversation. */
  context?: string;
  /** Extra instructions ahead of the task (a skill's body). */
  instructions?: string;
  /** Narrows the tools further (a skill's allowed_tools); never widens. */
  allowedTools?: readonly string[];
};

export type SubagentResult = { ok: boolean; text: string };

export type SubagentDeps = {
  registry: Registry;
  router: RouterDeps;
  /** The sub-agents' routes: [fermix_core.routing]'s, or a subagents call's one-shot model/provider (throws when refused). */
  routes: (oneShot?: RouteChoice) => Route[];
  agentName: string;
  now: () => number;
};

/**
 * Runs tasks as temporary agents, at most `concurrency` at once (capped by the parent turn's run profile).
 * Each one's tools are the intersection of its parent's surface and the delegation baseline (and the
 * task's own allow-list): never wider.
 */
export async function runSubagents(
  tasks: readonly SubagentTask[],
  parent: ToolContext,
  opts: { concurrency?: number; route?: RouteChoice },
  deps: SubagentDeps,
): Promise<SubagentResult[]> {
  // A one-shot model is checked before any task starts: a refused pairing fails the call, not each task.
  const oneShot = opts.route && (opts.route.model || opts.route.provider) ? deps.routes(opts.route) : undefined;
  const caps = subagentCaps(parent.runProfile);
  const limit = Math.min(caps.maxConcurrency, Math.max(1, opts.concurrency ?? caps.defaultConcurrency));
  const results: SubagentResult[] = new Array(tasks.length);
  let next = 0;
  const worker = async () => {
    while (next < tasks.length) {
      const index = next++;
      results[index] = await runOne(tasks[index]!, parent, oneShot ? { ...deps, routes: () => oneShot } : deps);
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, tasks.length) }, worker));
  return results;
}

export function delegatedSurface(parent: readonly AnyTool[], allowed?: readonly string[]): AnyTool[] {
  return parent.filter((t) => !NEVER_DELEGATED.has(t.name) && (!allowed || allowed.includes(t.name)));
}

async function runOne(task: SubagentTask, parent: ToolContext, deps: SubagentDeps): Promise<SubagentResult> {
  const deferred = new Set(parent.deferred ?? []);
  const split = splitSurface(delegatedSurface(parent.surface(), task.allowedTools), {
    enabled: deferred.size > 0,
    isDeferrable: (t) => deferred.has(t),
    // A narrow sub-agent (a skill's two tools) gets them on the wire: the bridges would cost more.
    weigh: deps.registry.specSize,
  });
  const surface = split.callable;
  // A subagent's traces carry its own session id, linked to the parent's by its start event.
  const trace = parent.trace && { traces: parent.trace.traces, sessionId: newSessionId("subagent") };
  // Nobody is watching a subagent: it may not prompt the owner.
  const context: ToolContext = {
    ...parent,
    caller: { ...parent.caller, attended: false },
    surface: () => surface,
    deferred: split.deferred,
    trace,
  };
  const system = [
    `You are a focused sub-agent working for ${deps.agentName}. Do exactly the task below with the tools you have,`,
    "then answer with the result only: no preamble, no questions back (nobody can answer them).",
    task.instructions ? `\n${task.instructions}` : "",
    `\nToday's date is ${new Date(deps.now()).toISOString().slice(0, 10)} (UTC).`,
  ].join(" ");
  const text = task.context ? `${task.task}\n\nContext:\n${task.context}` : task.task;
  trace?.traces.write("agent_event", {
    session_id: trace.sessionId,
    parent_session_id: parent.trace!.sessionId,
    event: "subagent_start",
    tools: surface.length,
  });
  const outcome = await runLoop(context, split, system, text, deps);
  trace?.traces.write("agent_event", {
    session_id: trace.sessionId,
    parent_session_id: parent.trace!.sessionId,
    event: "subagent_end",
    status: outcome.ok ? "ok" : "error",
  });
  return outcome;
}

async function runLoop(
  context: ToolContext,
  split: ReturnType<typeof splitSurface>,
  system: string,
  text: string,
  deps: SubagentDeps,
): Promise<SubagentResult> {
  try {
    const result = await runToolLoop({
      routes: deps.routes(),
      system,
      messages: [{ role: "user", content: [{ type: "text", text }] }],
      tools: split.sent.map((t) => deps.registry.spec(t)),
      registry: deps.registry,
      toolContext: context,
      // Counted under the parent's conversation (and its job), as a sub-agent's calls.
      router: scopedRouter(
        deps.router,
        conversationScope("subagent", context.conversation, { jobId: context.caller.jobId }),
      ),
      signal: context.signal,
      iterationLimit: subagentCaps(context.runProfile).iterationLimit,
    });
    if (!result.ok)
      return {
        ok: false,
        text: failureToError(result.failure, deps.now(), { afterOutput: result.afterOutput }).message,
      };
    return result.text.trim()
      ? { ok: true, text: result.text.trim() }
      : { ok: false, text: "the subagent returned nothing" };
  } catch (err) {
    return { ok: false, text: err instanceof Error ? err.message : String(err) };
  }
}
