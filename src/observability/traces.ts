import { appendFileSync, mkdirSync } from "node:fs";
import { join } from "node:path";
import { randomHex } from "../ids.ts";
import { redact } from "./redact.ts";

/**
 * The trace files of the earlier implementation, `traces/YYYY-MM-DD/<type>.jsonl`, plus `channel_stream` (a chat
 * reply's phases, issue 27: gateway/streaming/stream-trace.ts).
 */
export type TraceType =
  | "llm_call"
  | "tool_exec"
  | "agent_event"
  | "channel_msg"
  | "channel_stream"
  | "error"
  | "sandbox_event";

export type Traces = {
  /** `at`: the time the line describes, for one written after the fact (its `ts` and its day); now by default. */
  write(type: TraceType, record: Record<string, unknown>, at?: number): void;
  /** Whether lines carry whole prompts, answers and tool output (FERMIX_TRACE_CONTENT=1); off by default. */
  capture: boolean;
};

/** Where a traced piece of work writes, and under which session: `main-<hex>` for a turn, hex for a subagent. */
export type TraceContext = { traces: Traces; sessionId: string };

export const NO_TRACES: Traces = { write() {}, capture: false };

/**
 * The spec's switch: FERMIX_TRACE_CONTENT=1 captures locally; FERMIX_OPIK_ENABLED=1 implies it unless
 * FERMIX_TRACE_CONTENT=0 (the exporter: observability/export/).
 */
export function captureContent(env: Readonly<Record<string, string | undefined>>): boolean {
  if (env.FERMIX_TRACE_CONTENT === "1") return true;
  return env.FERMIX_OPIK_ENABLED === "1" && env.FERMIX_TRACE_CONTENT !== "0";
}

/**
 * One JSON object per line, `ts` first, bounded and body-free by default: names, outcomes, timings and
 * sizes, not prompts, replies or tool output (those only with `capture`, then whole). Each line passes the
 * secret redactor like the log does. Writing a trace must never fail the work it describes, so errors here
 * are swallowed.
 */
export function createTraces(opts: {
  dir: string;
  now?: () => number;
  capture?: boolean;
  /** Each line as written (redacted), for the trace exporters (observability/export); must not throw. */
  onRecord?: (record: Record<string, unknown>) => void;
}): Traces {
  const ready = new Set<string>();
  return {
    capture: opts.capture === true,
    write(type, record, time) {
      try {
        const at = new Date(time ?? (opts.now ?? Date.now)());
        const day = join(opts.dir, at.toISOString().slice(0, 10));
        if (!ready.has(day)) {
          mkdirSync(day, { recursive: true, mode: 0o700 });
          ready.add(day);
        }
        const line = redact(JSON.stringify({ ts: at.toISOString(), type, ...record }));
        appendFileSync(join(day, `${type}.jsonl`), `${line}\n`, { mode: 0o600 });
        opts.onRecord?.(JSON.parse(line));
      } catch {}
    },
  };
}

/** A session id for one piece of work: `main-3f9a…` for a turn, bare hex for a subagent (as the reference). */
export function newSessionId(kind: "main" | "subagent"): string {
  const hex = randomHex(6);
  return kind === "main" ? `main-${hex}` : hex;
}
