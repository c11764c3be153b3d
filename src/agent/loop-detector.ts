import type { ToolCallPart } from "../providers/types.ts";

export const LOOP_WINDOW = 10;
export const LOOP_WARN_AT = 3;
export const LOOP_ABORT_AT = 5;

export type LoopVerdict = "ok" | "warn" | "abort";

/**
 * Watches the last 10 tool calls of a turn. The same call (name and arguments) 3 times earns the model
 * a warning in its result; 5 times stops the turn, since a model repeating itself will not converge.
 */
export function createLoopDetector() {
  const recent: string[] = [];
  return {
    observe(call: ToolCallPart): LoopVerdict {
      const key = `${call.name}:${stableJson(call.arguments)}`;
      recent.push(key);
      if (recent.length > LOOP_WINDOW) recent.shift();
      const count = recent.filter((k) => k === key).length;
      if (count >= LOOP_ABORT_AT) return "abort";
      if (count >= LOOP_WARN_AT) return "warn";
      return "ok";
    },
  };
}

/** Key order must not make two identical calls look different. */
function stableJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(stableJson).join(",")}]`;
  if (value && typeof value === "object") {
    const entries = Object.entries(value as Record<string, unknown>).sort(([a], [b]) => a.localeCompare(b));
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${stableJson(v)}`).join(",")}}`;
  }
  return JSON.stringify(value);
}
