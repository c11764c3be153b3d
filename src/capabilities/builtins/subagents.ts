import * as v from "valibot";
import { subagentCaps } from "../../agent/run-profile.ts";
import { SUBAGENT_DEFAULT_CONCURRENCY, SUBAGENT_MAX_CONCURRENCY, SUBAGENT_MAX_TASKS } from "../../agent/subagents.ts";
import { isFermixError } from "../../error.ts";
import { lazySchema } from "../../valibot-lazy.ts";
import { defineTool } from "../tool.ts";

// The schema admits an /ultra turn's numbers; a normal turn's lower caps are checked in execute.
const WIDEST = subagentCaps("ultra");

export const subagents = defineTool({
  name: "subagents",
  description: `Run up to ${SUBAGENT_MAX_TASKS} independent tasks (${WIDEST.maxTasks} in an /ultra turn) in parallel as temporary sub-agents and get their results.`,
  policy: "delegation",
  readOnly: true,
  timeoutMs: 60 * 60_000,
  parameters: lazySchema(() =>
    v.object({
      tasks: v.pipe(
        v.array(v.object({ task: v.pipe(v.string(), v.minLength(1)), context: v.optional(v.string()) })),
        v.minLength(1),
        v.maxLength(WIDEST.maxTasks, `at most ${WIDEST.maxTasks} tasks per call`),
      ),
      concurrency: v.optional(v.pipe(v.number(), v.integer(), v.minValue(1), v.maxValue(WIDEST.maxConcurrency))),
      // A one-shot route for this call's sub-agents only; [fermix_core.routing] and the main agent stay as they are.
      model: v.optional(v.pipe(v.string(), v.trim(), v.minLength(1), v.maxLength(200))),
      provider: v.optional(v.pipe(v.string(), v.trim(), v.minLength(1), v.maxLength(64))),
    }),
  ),
  help: `Each task runs as its own agent with at most your tools (never request_directory_access or subagents) and up to 100 model calls. Sub-agents cannot see this conversation: put every fact a task needs in its text or context. Default ${SUBAGENT_DEFAULT_CONCURRENCY} at once, at most ${SUBAGENT_MAX_CONCURRENCY}. In an /ultra turn: up to ${WIDEST.maxTasks} tasks, ${WIDEST.maxConcurrency} at once, ${WIDEST.iterationLimit} model calls each. model/provider run this call's sub-agents on another model (never yours, never later calls): a model without a provider runs on the primary provider; a model another provider serves is refused unless provider names that provider, which must be one the owner configured.`,
  async execute(args, ctx) {
    const delegation = ctx.delegation;
    if (!delegation) return { isError: true, content: "sub-agents are not available in this context" };
    const caps = subagentCaps(ctx.runProfile);
    if (args.tasks.length > caps.maxTasks)
      return {
        isError: true,
        content: `at most ${caps.maxTasks} tasks per call in this turn (an /ultra turn allows ${WIDEST.maxTasks}); split them over several calls`,
      };
    const route = args.model || args.provider ? { model: args.model, provider: args.provider } : undefined;
    let results: Awaited<ReturnType<typeof delegation.run>>;
    try {
      results = await delegation.run(args.tasks, ctx, { concurrency: args.concurrency, route });
    } catch (err) {
      // A refused one-shot model/provider: nothing ran; the message says what to pass instead.
      if (isFermixError(err)) return { isError: true, content: `subagents not started: ${err.message}` };
      throw err;
    }
    const failed = results.filter((r) => !r.ok).length;
    const body = results.map((r, i) => `## Task ${i + 1}${r.ok ? "" : " (failed)"}\n${r.text}`).join("\n\n");
    return { content: body, isError: failed === results.length };
  },
});
