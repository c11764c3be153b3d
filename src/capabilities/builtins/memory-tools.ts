import * as v from "valibot";
import { CATEGORIES, MAX_KEY_CHARS, MAX_RECALL, MAX_VALUE_CHARS } from "../../memory/memories.ts";
import type { MemoryStore, RecallHit } from "../../memory/memories-contract.ts";
import { type EffectiveScope, effectiveScope, REQUESTED_SCOPES } from "../../memory/recall-scope.ts";
import { describeScope } from "../../memory/scopes.ts";
import { lazySchema } from "../../valibot-lazy.ts";
import type { Caller } from "../caller.ts";
import { defineTool, type ToolContext, type ToolResult } from "../tool.ts";

/** A scheduled run's caller carries its job id; jobs/ adds the field to Caller when it lands. */
export type JobCaller = Caller & { jobId?: string };

/** What the memory tools need beyond any tool's context. */
export type MemoryToolContext = ToolContext & { memory: MemoryStore };

const NOT_WIRED: ToolResult = { isError: true, content: "Memory is not available in this context." };

function hasMemory(ctx: ToolContext): ctx is MemoryToolContext {
  return ctx.memory !== undefined;
}

function scopeOf(ctx: ToolContext, requested?: (typeof REQUESTED_SCOPES)[number]): EffectiveScope {
  const caller = ctx.caller as JobCaller;
  return effectiveScope({ trust: caller.trust, jobId: caller.jobId, conversation: ctx.conversation }, requested);
}

export const memoryStore = defineTool({
  name: "memory_store",
  description: "Remember a durable fact (identity, preference, interest, goal, context, directive) under a short key.",
  policy: "memory_write",
  readOnly: false,
  parameters: lazySchema(() =>
    v.object({
      category: v.picklist(CATEGORIES),
      key: v.pipe(v.string(), v.trim(), v.minLength(1), v.maxLength(MAX_KEY_CHARS)),
      value: v.pipe(v.string(), v.trim(), v.minLength(1), v.maxLength(MAX_VALUE_CHARS)),
      confidence: v.optional(v.pipe(v.number(), v.minValue(0), v.maxValue(1))),
    }),
  ),
  help: "Storing under a key that already holds a fact replaces it (the old value is kept as history, not shown). Keys are case-insensitive; spaces become underscores. identity/preference/interest/goal describe the user; context/directive describe the work and how to do it. Facts from a guest conversation stay with that conversation.",
  async execute(args, ctx) {
    if (!hasMemory(ctx)) return NOT_WIRED;
    const scope = scopeOf(ctx);
    const outcome = ctx.memory.store({ ...args, scope: scope.writeScope, source: sourceOf(ctx, scope) });
    if (!outcome.ok) return { isError: true, content: `Not stored: ${outcome.error}.` };
    const { fact } = outcome;
    const where = scope.granted === "guest" ? " (kept with this conversation)" : "";
    if (outcome.status === "unchanged") return `Already known: ${fact.key} = ${fact.value}${where}.`;
    const replacing = outcome.previous ? ` (replacing "${outcome.previous.value}")` : "";
    return `Stored ${fact.category} ${fact.key} = ${fact.value}${replacing}${where}.`;
  },
});

export const memoryRecall = defineTool({
  name: "memory_recall",
  description: "Recall stored facts by key, or search facts and past conversations by words (scope current|owner|all).",
  policy: "memory_read",
  readOnly: true,
  parameters: lazySchema(() =>
    v.object({
      query: v.optional(v.pipe(v.string(), v.maxLength(500))),
      key: v.optional(v.pipe(v.string(), v.trim(), v.minLength(1), v.maxLength(MAX_KEY_CHARS))),
      scope: v.optional(v.picklist(REQUESTED_SCOPES), "current"),
      source: v.optional(v.picklist(["memories", "history", "all"]), "all"),
      limit: v.optional(v.pipe(v.number(), v.integer(), v.minValue(1), v.maxValue(MAX_RECALL)), 10),
    }),
  ),
  help: "key: exact lookup of one fact (query is then ignored). query: full-text search, best matches first; words are matched separately and a trailing * matches a prefix (lisb*); when thousands of messages match, the newest 2,000 of them are ranked. Neither: the most recently stored facts. scope: current = this conversation and the owner's facts, owner = the owner's facts and all of the owner's conversations, all = everything; it can only narrow what this caller may read (a guest always reads its own conversation).",
  async execute(args, ctx) {
    if (!hasMemory(ctx)) return NOT_WIRED;
    const scope = scopeOf(ctx, args.scope);
    const result = ctx.memory.recall({
      scopes: scope.memoryScopes,
      key: args.key,
      query: args.query,
      source: args.source,
      historyConversations: scope.history,
      limit: args.limit,
    });
    if (!result.ok) return { isError: true, content: `Recall failed: ${result.error}.` };
    const what =
      result.mode === "key" ? `key "${args.key}"` : result.mode === "search" ? `"${args.query}"` : "recent facts";
    const note = scope.narrowed
      ? `; scope limited to ${scope.granted === "job" ? "this job" : "this conversation"}`
      : "";
    const head = `${result.hits.length} result${result.hits.length === 1 ? "" : "s"} for ${what} (scope ${scope.granted}${note})`;
    if (!result.hits.length) return `${head}.`;
    return `${head}:\n${result.hits.map((hit, i) => `${i + 1}. ${renderHit(hit)}`).join("\n")}`;
  },
});

export const memorySourcesList = defineTool({
  name: "memory_sources_list",
  deferrable: true,
  description: "List what memory holds: stored facts per scope and category, and how much conversation history.",
  // It reveals what the owner has stored, so a guest never gets it.
  policy: "workspace_read",
  readOnly: true,
  parameters: lazySchema(() => v.object({})),
  async execute(_args, ctx) {
    if (!hasMemory(ctx)) return NOT_WIRED;
    const scope = scopeOf(ctx, "all");
    if (scope.granted === "guest") return { isError: true, content: "Memory sources are the owner's to list." };
    const sources = ctx.memory.sources();
    const allowed = scope.memoryScopes;
    const rows = sources.memories.filter((r) => allowed === "all" || allowed.includes(r.scope));
    const byScope = new Map<string, string[]>();
    for (const r of rows) byScope.set(r.scope, [...(byScope.get(r.scope) ?? []), `${r.category} ${r.count}`]);
    const lines = [...byScope].map(([s, parts]) => `- ${describeScope(s)}: ${parts.join(", ")}`);
    const facts = lines.length ? `Stored facts:\n${lines.join("\n")}` : "No stored facts.";
    if (scope.history !== "all") return facts;
    const h = sources.history;
    return `${facts}\nHistory: ${h.messages} messages in ${h.conversations} conversations.`;
  },
});

export const MEMORY_TOOLS = [memoryStore, memoryRecall, memorySourcesList] as const;

/** Where a fact came from, kept with it: the conversation, or the job that stored it. */
function sourceOf(ctx: ToolContext, scope: EffectiveScope): string {
  if (scope.granted === "job") return scope.writeScope;
  const c = ctx.conversation;
  return `conversation ${c.channel}:${c.chat}${c.thread ? `:${c.thread}` : ""}`;
}

function renderHit(hit: RecallHit): string {
  if (hit.from === "memory") {
    const sure = hit.confidence < 1 ? `, confidence ${hit.confidence}` : "";
    return `[fact, ${describeScope(hit.scope)}, ${hit.category}] ${hit.key}: ${hit.value} (${day(hit.updatedAt)}${sure})`;
  }
  const c = hit.conversation;
  const where = `${c.channel}:${c.chat}${c.thread ? `:${c.thread}` : ""}`;
  return `[history ${where}, ${hit.role}, ${minute(hit.createdAt)}] ${hit.snippet.replace(/\s+/g, " ").trim()}`;
}

function day(ms: number): string {
  return new Date(ms).toISOString().slice(0, 10);
}

function minute(ms: number): string {
  return new Date(ms).toISOString().slice(0, 16).replace("T", " ");
}
