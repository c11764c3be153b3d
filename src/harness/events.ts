import * as v from "valibot";
import type { Vendor } from "./harness-types.ts";

/**
 * The vendors' JSON event streams, read leniently: only the fields used here are checked, anything else a newer
 * CLI adds passes through unseen. An event of an unknown type is counted and otherwise ignored.
 */

/** What one event tells the run. */
export type StreamNews = {
  /** The vendor's thread / session id (for resume). */
  session?: string;
  /** A short line worth showing the owner while the run works. */
  milestone?: string;
  /** The vendor's final answer (the last agent message, or Claude's result). */
  final?: string;
  usage?: unknown;
  /** The vendor reported failure. */
  error?: string;
  /** The vendor said the work is over (a turn completed or failed, a result arrived). */
  done?: boolean;
};

const Text = v.string();
const Loose = <T extends v.ObjectEntries>(entries: T) => v.looseObject(entries);

const CodexItem = Loose({
  type: Text,
  text: v.optional(Text),
  command: v.optional(Text),
  exit_code: v.optional(v.nullable(v.number())),
  message: v.optional(Text),
  changes: v.optional(v.array(Loose({ path: v.optional(Text), kind: v.optional(Text) }))),
  query: v.optional(Text),
  server: v.optional(Text),
  tool: v.optional(Text),
});

const CodexEvent = v.variant("type", [
  Loose({ type: v.literal("thread.started"), thread_id: Text }),
  Loose({ type: v.picklist(["item.started", "item.updated", "item.completed"]), item: CodexItem }),
  Loose({ type: v.literal("turn.completed"), usage: v.optional(v.unknown()) }),
  Loose({ type: v.literal("turn.failed"), error: v.optional(Loose({ message: v.optional(Text) })) }),
  Loose({ type: v.literal("error"), message: v.optional(Text) }),
]);

function codexNews(json: unknown): StreamNews | undefined {
  const parsed = v.safeParse(CodexEvent, json);
  if (!parsed.success) return undefined;
  const event = parsed.output;
  switch (event.type) {
    case "thread.started":
      return { session: event.thread_id, milestone: "started" };
    case "turn.completed":
      return { usage: event.usage, done: true };
    case "turn.failed":
      return { error: event.error?.message ?? "the turn failed", done: true };
    case "error":
      return { error: event.message ?? "Codex reported an error" };
    default: {
      const item = event.item;
      if (event.type === "item.started") {
        return item.type === "command_execution" && item.command ? { milestone: `running ${quote(item.command)}` } : {};
      }
      if (event.type !== "item.completed") return {};
      switch (item.type) {
        case "agent_message":
          return item.text ? { final: item.text } : {};
        case "command_execution":
          return item.command
            ? {
                milestone: `ran ${quote(item.command)}${typeof item.exit_code === "number" ? ` (exit ${item.exit_code})` : ""}`,
              }
            : {};
        case "file_change": {
          const paths = (item.changes ?? []).map((c) => c.path).filter((p): p is string => !!p);
          return paths.length
            ? { milestone: `changed ${paths.slice(0, 5).join(", ")}${paths.length > 5 ? " …" : ""}` }
            : {};
        }
        case "mcp_tool_call":
          return { milestone: `called ${item.server ?? "an MCP server"}${item.tool ? `.${item.tool}` : ""}` };
        case "web_search":
          return item.query ? { milestone: `searched the web for ${quote(item.query)}` } : {};
        case "error":
          return item.message ? { milestone: `warning: ${clip(item.message)}` } : {};
        default:
          return {};
      }
    }
  }
}

const ClaudeBlock = Loose({
  type: Text,
  text: v.optional(Text),
  name: v.optional(Text),
  input: v.optional(v.unknown()),
});

const ClaudeEvent = v.variant("type", [
  Loose({
    type: v.literal("system"),
    subtype: v.optional(Text),
    session_id: v.optional(Text),
    model: v.optional(Text),
  }),
  Loose({ type: v.literal("assistant"), message: Loose({ content: v.optional(v.array(ClaudeBlock)) }) }),
  Loose({
    type: v.literal("result"),
    subtype: v.optional(Text),
    is_error: v.optional(v.boolean()),
    result: v.optional(Text),
    session_id: v.optional(Text),
    usage: v.optional(v.unknown()),
    total_cost_usd: v.optional(v.number()),
    num_turns: v.optional(v.number()),
  }),
]);

function claudeNews(json: unknown): StreamNews | undefined {
  const parsed = v.safeParse(ClaudeEvent, json);
  if (!parsed.success) return undefined;
  const event = parsed.output;
  switch (event.type) {
    case "system":
      return event.subtype === "init"
        ? { session: event.session_id, milestone: `started${event.model ? ` (${event.model})` : ""}` }
        : {};
    case "assistant": {
      const tools = (event.message.content ?? []).filter((b) => b.type === "tool_use" && b.name);
      if (!tools.length) return {};
      return { milestone: tools.map((b) => describeTool(b.name!, b.input)).join("; ") };
    }
    default: {
      const failed = event.is_error === true || (event.subtype !== undefined && event.subtype !== "success");
      const usage =
        event.usage !== undefined || event.total_cost_usd !== undefined
          ? { ...(event.usage as object), total_cost_usd: event.total_cost_usd, num_turns: event.num_turns }
          : undefined;
      return {
        session: event.session_id,
        ...(event.result !== undefined ? { final: event.result } : {}),
        ...(usage ? { usage } : {}),
        ...(failed ? { error: `Claude Code ended with ${event.subtype ?? "an error"}` } : {}),
        done: true,
      };
    }
  }
}

function describeTool(name: string, input: unknown): string {
  const i = (input ?? {}) as Record<string, unknown>;
  const detail = [i.command, i.file_path, i.path, i.pattern].find((x) => typeof x === "string") as string | undefined;
  return detail ? `${name} ${quote(detail)}` : name;
}

const quote = (s: string) => `\`${clip(s.replace(/\s+/g, " "))}\``;
const clip = (s: string, n = 120) => (s.length > n ? `${s.slice(0, n - 1)}…` : s);

/** What an event of this vendor's stream says; undefined when it is not an event this reader knows. */
export function readEvent(vendor: Vendor, json: unknown): StreamNews | undefined {
  return vendor === "codex" ? codexNews(json) : claudeNews(json);
}
