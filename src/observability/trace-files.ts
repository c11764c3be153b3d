import { existsSync, readdirSync } from "node:fs";
import { join } from "node:path";
import type { TraceType } from "./traces.ts";

// A record over TraceType rather than a list: adding a type to traces.ts fails to compile until it is added here.
const TYPES: Record<TraceType, true> = {
  llm_call: true,
  tool_exec: true,
  agent_event: true,
  channel_msg: true,
  channel_stream: true,
  error: true,
  sandbox_event: true,
};

export const TRACE_TYPES = Object.keys(TYPES) as TraceType[];

const DAY = /^\d{4}-\d{2}-\d{2}$/;

/**
 * The newest day's `<type>.jsonl` under the traces folder, or undefined when no day has one. Days are the
 * UTC dates traces.ts names its folders by, so they sort as text; a new day's folder counts once it holds
 * this type's file (another type may have opened it first).
 */
export function newestTraceFile(tracesDir: string, type: TraceType): string | undefined {
  let days: string[];
  try {
    days = readdirSync(tracesDir)
      .filter((d) => DAY.test(d))
      .sort();
  } catch {
    return undefined;
  }
  for (const day of days.reverse()) {
    const file = join(tracesDir, day, `${type}.jsonl`);
    if (existsSync(file)) return file;
  }
  return undefined;
}
