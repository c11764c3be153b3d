import * as v from "valibot";
import type { ToolCallPart } from "../providers/types.ts";
import type { Caller } from "./caller.ts";
import type { ChannelReply } from "./channel-reply.ts";
import { mayUse } from "./policy.ts";
import type { Registry, ToolOutcome } from "./registry-contract.ts";
import type { AnyTool, ToolContext, ToolResult } from "./tool.ts";
import { toolSpec, toolSpecSize } from "./tool-spec.ts";

/** What a model sees of one tool result, at most; longer output is cut with a note saying so. */
export const MAX_RESULT_CHARS = 32_000;
export const DEFAULT_TOOL_TIMEOUT_MS = 120_000;

/** One registry for every tool: built-ins now, skills, plugins and MCP later. */
export function createRegistry(tools: readonly AnyTool[]): Registry {
  const names = new Set<string>();
  for (const tool of tools) {
    if (names.has(tool.name)) throw new Error(`two tools are named ${tool.name}`);
    names.add(tool.name);
  }
  // Walked by every turn with an indexed loop: a Map's iterator, like the array builtins, runs as cold JavaScript in
  // a one-shot process.
  const list = [...tools];
  const registry: Registry = {
    all: (): AnyTool[] => [...list],

    surface(caller: Caller, channel?: ChannelReply): AnyTool[] {
      // A loop, not flatMap: JSC runs its array builtins as cold JavaScript in a one-shot process, and every turn
      // starts here (flatMap alone measured ~0.5 ms of a `fermix ask` profile).
      const tools: AnyTool[] = [];
      for (let i = 0; i < list.length; i++) {
        const t = list[i]!;
        if (!mayUse(t, caller)) continue;
        const offered = t.forChannel ? channel && t.forChannel(channel) : t;
        if (offered) tools.push(offered);
      }
      return tools;
    },

    // Shared process-wide (tool-spec.ts): a spec depends on the tool object alone.
    spec: toolSpec,
    specSize: toolSpecSize,

    async dispatch(call: ToolCallPart, ctx: ToolContext): Promise<ToolOutcome> {
      const started = performance.now();
      const done = (result: ToolResult): ToolOutcome => ({
        ...capped(result),
        name: call.name,
        durationMs: Math.round(performance.now() - started),
      });
      // The context's surface is the authority: a subagent or a skill may have less than its caller's trust allows.
      // A tool outside it is reported exactly like one that does not exist.
      const tool = ctx.surface().find((t) => t.name === call.name);
      if (!tool || !mayUse(tool, ctx.caller)) {
        const hint = ctx.caller.trust === "operator" ? await ctx.unknownToolHint?.(call.name) : undefined;
        return done({ isError: true, content: hint ?? `There is no tool named "${call.name}" available here.` });
      }
      const parsed = v.safeParse(tool.parameters, call.arguments);
      if (!parsed.success) return done({ isError: true, content: describeIssues(call.name, parsed.issues) });
      try {
        const result = await withTimeout(
          tool.execute(parsed.output, ctx),
          tool.timeoutMs ?? DEFAULT_TOOL_TIMEOUT_MS,
          ctx.signal,
        );
        return done(typeof result === "string" ? { content: result } : result);
      } catch (err) {
        return done({
          isError: true,
          content: `${call.name} failed: ${err instanceof Error ? err.message : String(err)}`,
        });
      }
    },
  };
  return registry;
}

function describeIssues(tool: string, issues: readonly v.BaseIssue<unknown>[]): string {
  const lines = issues.slice(0, 5).map((issue) => {
    const path = issue.path?.map((p) => String(p.key)).join(".") || "arguments";
    return `- ${path}: ${issue.message}`;
  });
  return `Invalid arguments for ${tool}; fix them and call it again:\n${lines.join("\n")}`;
}

function capped(result: ToolResult): ToolResult {
  if (result.content.length <= MAX_RESULT_CHARS) return result;
  const cut = result.content.slice(0, MAX_RESULT_CHARS);
  return { ...result, content: `${cut}\n[output cut at ${MAX_RESULT_CHARS} of ${result.content.length} characters]` };
}

function withTimeout<T>(work: Promise<T>, ms: number, signal: AbortSignal): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`timed out after ${Math.round(ms / 1000)} s`)), ms);
    const onAbort = () => reject(new Error("cancelled"));
    signal.addEventListener("abort", onAbort, { once: true });
    work.then(resolve, reject).finally(() => {
      clearTimeout(timer);
      signal.removeEventListener("abort", onAbort);
    });
  });
}
