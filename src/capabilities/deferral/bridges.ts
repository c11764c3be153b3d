/**
 * The three bridges that stand in for deferred tool schemas (plugin, MCP, situational built-ins) on the provider wire
 * (spec: self-knowledge.md, "Tool-schema deferral"). The model finds a tool with tool_search, reads its
 * arguments with tool_describe, and runs it with tool_call or simply by its own name.
 *
 * Every bridge sees only the deferred tools that are also in the caller's surface: a guest, a subagent or a
 * skill with narrowed tools cannot discover, describe or run what it could not call directly.
 */
import * as v from "valibot";
import { lazySchema } from "../../valibot-lazy.ts";
import { mayUse } from "../policy.ts";
import { prerendered } from "../prerendered-specs.ts";
import { createRegistry } from "../registry.ts";
import { type AnyTool, defineTool, type ToolContext } from "../tool.ts";
import { indexOf, specOf } from "./_catalog.ts";

/** The context the bridges read; the lead folds `deferred` into ToolContext itself. */
export type DeferralContext = ToolContext & {
  /** The tools whose schemas were left off the provider request this turn (still dispatchable by name). */
  deferred?: readonly AnyTool[];
};

export const TOOL_SEARCH = "tool_search";
export const TOOL_DESCRIBE = "tool_describe";
export const TOOL_CALL = "tool_call";

const DEFAULT_LIMIT = 8;
const MAX_LIMIT = 20;
const NOTHING_DEFERRED = "No tools are deferred here: every tool you can use is already in your tool list.";

/** The deferred tools this caller may actually call, in catalog order. */
function reachable(ctx: ToolContext): AnyTool[] {
  const deferred = (ctx as DeferralContext).deferred ?? [];
  if (!deferred.length) return [];
  const surface = new Set(ctx.surface().map((t) => t.name));
  return deferred.filter((t) => surface.has(t.name) && mayUse(t, ctx.caller));
}

function ranked(ctx: ToolContext, query: string, limit: number, within: readonly AnyTool[]): AnyTool[] {
  const allowed = new Map(within.map((t) => [t.name, t]));
  const deferred = (ctx as DeferralContext).deferred ?? [];
  return indexOf(deferred)
    .search(query, limit, (id) => allowed.has(id))
    .map((hit) => allowed.get(hit.id)!);
}

const line = (tool: AnyTool) => `${tool.name} — ${tool.description}`;

/** For a name that is not a reachable deferred tool: say why, and offer the nearest names. */
function notFound(ctx: ToolContext, name: string, within: readonly AnyTool[]): string {
  if (ctx.surface().some((t) => t.name === name && !t.unadvertised)) {
    return `${name} is not deferred: its schema is already in your tool list, so call it directly.`;
  }
  const near = ranked(ctx, name, 3, within).map((t) => t.name);
  const hint = near.length ? ` Closest: ${near.join(", ")}.` : ` Use ${TOOL_SEARCH} to find one.`;
  return `There is no deferred tool named "${name}" available here.${hint}`;
}

export const toolSearch = defineTool({
  name: TOOL_SEARCH,
  description:
    "Find tools not in this list (plugin, MCP, on-request built-ins) by what they do: names and descriptions.",
  help: "Ranks by keyword relevance (BM25) over names, descriptions and parameters. Use tool_describe for a match's arguments.",
  policy: "meta",
  readOnly: true,
  parameters: lazySchema(() =>
    v.object({
      query: v.pipe(v.string(), v.trim(), v.minLength(1), v.maxLength(400), v.description("What the tool should do.")),
      limit: v.optional(
        v.pipe(
          v.number(),
          v.integer(),
          v.minValue(1),
          v.maxValue(MAX_LIMIT),
          v.description(`How many matches (1-${MAX_LIMIT}, default ${DEFAULT_LIMIT}).`),
        ),
      ),
    }),
  ),
  async execute(args, ctx) {
    const within = reachable(ctx);
    if (!within.length) return NOTHING_DEFERRED;
    const hits = ranked(ctx, args.query, args.limit ?? DEFAULT_LIMIT, within);
    if (!hits.length) {
      return `No deferred tool matches "${args.query}". Try other words: a service name, a verb, an object.`;
    }
    return `${hits.map(line).join("\n")}\n\nNext: ${TOOL_DESCRIBE} for a tool's arguments, then ${TOOL_CALL} or its own name.`;
  },
});

export const toolDescribe = defineTool({
  name: TOOL_DESCRIBE,
  description: "The argument schema of one deferred tool.",
  policy: "meta",
  readOnly: true,
  parameters: lazySchema(() =>
    v.object({ name: v.pipe(v.string(), v.trim(), v.minLength(1), v.description("The tool's exact name.")) }),
  ),
  async execute(args, ctx) {
    const within = reachable(ctx);
    if (!within.length) return { isError: true, content: NOTHING_DEFERRED };
    const tool = within.find((t) => t.name === args.name);
    if (!tool) return { isError: true, content: notFound(ctx, args.name, within) };
    const schema = JSON.stringify(specOf(tool), null, 2);
    return tool.help ? `${schema}\n\nNotes: ${tool.help}` : schema;
  },
});

/**
 * The agent loop unwraps tool_call before dispatch (unwrap.ts), so policy, traces and the loop detector see the
 * real tool. This execute only runs where a call reaches dispatch still wrapped — a loop that does not unwrap,
 * or a malformed wrapper — and then it dispatches the target through the same surface and policy checks.
 */
export const toolCall = defineTool({
  name: TOOL_CALL,
  description: "Run a deferred tool: its name and arguments.",
  policy: "meta",
  // Not read-only: the target may write, and a wrapped call must not be batched with parallel reads.
  readOnly: false,
  // The target's own timeout governs inside dispatch; this only has to outlast it (and stay within setTimeout's range).
  timeoutMs: 24 * 60 * 60 * 1000,
  parameters: lazySchema(() =>
    v.object({
      name: v.pipe(v.string(), v.trim(), v.minLength(1), v.description("The deferred tool's exact name.")),
      arguments: v.optional(
        v.pipe(v.record(v.string(), v.unknown()), v.description("The tool's arguments, as its schema describes.")),
        {},
      ),
    }),
  ),
  async execute(args, ctx) {
    if (args.name === TOOL_CALL) return { isError: true, content: `${TOOL_CALL} cannot run itself; name the tool.` };
    // An empty registry is enough: dispatch resolves the tool from ctx.surface(), the authority for what may run.
    const outcome = await createRegistry([]).dispatch(
      { type: "tool_call", id: TOOL_CALL, name: args.name, arguments: args.arguments },
      ctx,
    );
    return { content: outcome.content, isError: outcome.isError };
  },
});

/** The bridges, in the order they join the provider's tool list. */
export const BRIDGES: readonly AnyTool[] = prerendered([toolSearch, toolDescribe, toolCall]);
