import type { ToolCallPart } from "../../providers/types.ts";
import { TOOL_CALL } from "./bridges.ts";

/**
 * Turns `tool_call {name, arguments}` into a call of the named tool with the same id, so dispatch, policy,
 * traces and the loop detector all see the real tool (spec: "the loop unwraps it"). Anything else, and any
 * wrapper too malformed to unwrap, passes unchanged: dispatch then validates tool_call's own arguments and
 * the model reads what was wrong.
 *
 * @example
 * unwrapToolCall({ type: "tool_call", id: "c1", name: "tool_call",
 *   arguments: { name: "slack_list_channels", arguments: { limit: 5 } } })
 * // → { type: "tool_call", id: "c1", name: "slack_list_channels", arguments: { limit: 5 } }
 */
export function unwrapToolCall(call: ToolCallPart): ToolCallPart {
  if (call.name !== TOOL_CALL) return call;
  const name = typeof call.arguments.name === "string" ? call.arguments.name.trim() : "";
  // A wrapper around itself would only unwrap into another wrapper; let tool_call refuse it.
  if (!name || name === TOOL_CALL) return call;
  const args = asArguments(call.arguments.arguments);
  if (!args) return call;
  return { type: "tool_call", id: call.id, name, arguments: args };
}

// Models now and then send the inner arguments as a JSON string rather than an object; both mean the same.
function asArguments(value: unknown): Record<string, unknown> | undefined {
  if (value === undefined || value === null) return {};
  if (typeof value === "string") {
    if (!value.trim()) return {};
    try {
      return asObject(JSON.parse(value));
    } catch {
      return undefined;
    }
  }
  return asObject(value);
}

function asObject(value: unknown): Record<string, unknown> | undefined {
  return value && typeof value === "object" && !Array.isArray(value) ? (value as Record<string, unknown>) : undefined;
}
