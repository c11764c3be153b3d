import { uuidv7 } from "./ids.ts";

/**
 * One finished piece of a trace, ready for either exporter. A session (a turn, a scheduled run, a realtime
 * call) is a trace whose root is `root: true`; a sub-agent's session is a span under its parent's, so its
 * workers nest in the parent trace; model calls and tool runs are spans under their session.
 */
export type ExportSpan = {
  traceId: string;
  id: string;
  /** The enclosing span; for a span directly under a session's root, the root's id (`parentIsRoot`). */
  parentId?: string;
  parentIsRoot?: boolean;
  root: boolean;
  name: string;
  type: "general" | "llm" | "tool";
  startMs: number;
  endMs: number;
  sessionId: string;
  /** The trace line's other scalar fields (bounded: names, outcomes, sizes). */
  attributes: Record<string, string | number | boolean>;
  /** Present only when the traces capture content (FERMIX_TRACE_CONTENT / FERMIX_OPIK_ENABLED). */
  input?: unknown;
  output?: unknown;
  error?: { type: string; message: string };
  model?: string;
  provider?: string;
  usage?: { input?: number; output?: number };
};

type Session = {
  traceId: string;
  spanId: string;
  parent?: Session;
  root: boolean;
  name: string;
  startMs: number;
  lastMs: number;
  attributes: Record<string, string | number | boolean>;
  error?: { type: string; message: string };
};

/** The events that close a session: a turn, a sub-agent, a realtime call, a /soul draft run. */
const END_EVENTS = /^(turn_end|subagent_end|call_stop)$|_run_(complete|error)$/;
const START_EVENTS = /^(turn_start|subagent_start|call_start)$|_run_start$/;
/** Sessions left open (a crash, a lost end event) are closed oldest-first past this many. */
const MAX_OPEN = 1000;
const OWN_FIELDS = new Set(["ts", "type", "session_id", "parent_session_id", "event", "input", "output"]);

/**
 * Turns the trace writer's records (already redacted) into spans. Spans are emitted when they end — a model
 * call or a tool run as its line is written, a session at its end event — so nothing is sent twice.
 */
export function createSpanAssembler(emit: (span: ExportSpan) => void) {
  const open = new Map<string, Session>();

  const session = (id: string, rec: Record<string, unknown>, at: number): Session => {
    const known = open.get(id);
    if (known) {
      known.lastMs = Math.max(known.lastMs, at);
      return known;
    }
    const parentId = typeof rec.parent_session_id === "string" ? rec.parent_session_id : undefined;
    const parent = parentId ? open.get(parentId) : undefined;
    const s: Session = parent
      ? {
          traceId: parent.traceId,
          spanId: uuidv7(at),
          parent,
          root: false,
          name: "subagent",
          startMs: at,
          lastMs: at,
          attributes: {},
        }
      : {
          traceId: uuidv7(at),
          spanId: uuidv7(at),
          root: true,
          name: sessionName(id),
          startMs: at,
          lastMs: at,
          attributes: {},
        };
    open.set(id, s);
    if (open.size > MAX_OPEN) {
      const [oldest] = open.keys();
      if (oldest) end(oldest, open.get(oldest)!.lastMs);
    }
    return s;
  };

  const end = (id: string, at: number) => {
    const s = open.get(id);
    if (!s) return;
    open.delete(id);
    emit({
      traceId: s.traceId,
      id: s.spanId,
      ...(s.parent ? { parentId: s.parent.spanId, parentIsRoot: s.parent.root } : {}),
      root: s.root,
      name: s.name,
      type: "general",
      startMs: s.startMs,
      endMs: Math.max(at, s.startMs),
      sessionId: id,
      attributes: s.attributes,
      ...(s.error ? { error: s.error } : {}),
    });
  };

  const child = (s: Session, sessionId: string, span: Omit<ExportSpan, "traceId" | "id" | "root" | "sessionId">) =>
    emit({
      traceId: s.traceId,
      id: uuidv7(span.startMs),
      parentId: s.spanId,
      parentIsRoot: s.root,
      root: false,
      sessionId,
      ...span,
    });

  return {
    record(rec: Record<string, unknown>): void {
      const sessionId = typeof rec.session_id === "string" ? rec.session_id : undefined;
      if (!sessionId) return;
      const at = Date.parse(String(rec.ts));
      if (!Number.isFinite(at)) return;
      const duration = typeof rec.duration_ms === "number" && rec.duration_ms >= 0 ? rec.duration_ms : 0;
      const event = typeof rec.event === "string" ? rec.event : undefined;
      const attributes = scalars(rec);
      switch (rec.type) {
        case "llm_call": {
          const s = session(sessionId, rec, at - duration);
          const failed = rec.status === "error";
          child(s, sessionId, {
            name: [rec.provider, rec.model].filter((x) => typeof x === "string").join("/") || "llm_call",
            type: "llm",
            startMs: at - duration,
            endMs: at,
            attributes,
            ...content(rec),
            ...(typeof rec.model === "string" ? { model: rec.model } : {}),
            ...(typeof rec.provider === "string" ? { provider: rec.provider } : {}),
            ...(typeof rec.input_tokens === "number" || typeof rec.output_tokens === "number"
              ? { usage: { input: num(rec.input_tokens), output: num(rec.output_tokens) } }
              : {}),
            ...(failed
              ? { error: { type: String(rec.error_class ?? "error"), message: "the model call failed" } }
              : {}),
          });
          return;
        }
        case "tool_exec": {
          const s = session(sessionId, rec, at - duration);
          child(s, sessionId, {
            name: typeof rec.tool === "string" ? rec.tool : "tool",
            type: "tool",
            startMs: at - duration,
            endMs: at,
            attributes,
            ...(rec.arguments !== undefined ? { input: rec.arguments } : {}),
            ...(rec.output !== undefined ? { output: rec.output } : {}),
            ...(rec.status === "error" ? { error: { type: "tool_error", message: "the tool failed" } } : {}),
          });
          return;
        }
        case "error": {
          const s = session(sessionId, rec, at);
          s.error = { type: String(rec.code ?? "error"), message: String(rec.message ?? "") };
          return;
        }
        case "agent_event": {
          if (event && START_EVENTS.test(event)) {
            const s = session(sessionId, rec, at);
            if (s.root && event !== "turn_start") s.name = event.replace(/_start$/, "");
            Object.assign(s.attributes, attributes);
            return;
          }
          if (event && END_EVENTS.test(event)) {
            const s = session(sessionId, rec, at);
            Object.assign(s.attributes, attributes);
            if (rec.status === "error" && !s.error) s.error = { type: String(rec.code ?? "error"), message: event };
            end(sessionId, at);
            return;
          }
          break;
        }
      }
      // Anything else on a session (a failover, a sandbox refusal) is an instant under it.
      const s = session(sessionId, rec, at);
      child(s, sessionId, {
        name: event ?? String(rec.type),
        type: "general",
        startMs: at,
        endMs: at,
        attributes,
      });
    },
    /** Sessions still open (the process is stopping): sent as they stand, ended at their last line. */
    closeAll(): void {
      for (const [id, s] of [...open]) end(id, s.lastMs);
    },
  };
}

function sessionName(id: string): string {
  if (id.startsWith("main-")) return "turn";
  if (id.startsWith("cron_")) return "scheduled run";
  if (id.startsWith("session:")) return "realtime call";
  return "session";
}

function scalars(rec: Record<string, unknown>): Record<string, string | number | boolean> {
  const out: Record<string, string | number | boolean> = {};
  for (const [k, v] of Object.entries(rec)) {
    if (OWN_FIELDS.has(k)) continue;
    if (typeof v === "string" || typeof v === "number" || typeof v === "boolean") out[k] = v;
  }
  if (typeof rec.event === "string") out.event = rec.event;
  return out;
}

function content(rec: Record<string, unknown>): { input?: unknown; output?: unknown } {
  return {
    ...(rec.input !== undefined ? { input: rec.input } : {}),
    ...(rec.output !== undefined ? { output: rec.output } : {}),
  };
}

function num(x: unknown): number | undefined {
  return typeof x === "number" ? x : undefined;
}
