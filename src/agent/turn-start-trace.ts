import type { TraceContext, Traces } from "../observability/traces.ts";
import type { RouterDeps } from "../providers/router.ts";
import { afterThisTick } from "./after-this-tick.ts";

/** A turn's trace context; `writeStart` writes its turn_start line now if it has not gone yet. */
export type TurnTrace = TraceContext & { writeStart(): void };

/**
 * A turn's trace context, its `turn_start` line written after the turn's first request has gone out rather than
 * before (issue 31: a trace line is ~0.1 ms of JSON, redaction and file I/O in a young daemon), stamped with the
 * turn's start all the same. Any other line of the turn (its calls, tools, subagents, errors, end) writes the start
 * first, so the files keep their order (a failover's line too: startBeforeFailover).
 */
export function tracedFromStart(
  traces: Traces,
  sessionId: string,
  startedAt: number,
  fields: Record<string, unknown>,
): TurnTrace {
  const start = afterThisTick(() =>
    traces.write("agent_event", { session_id: sessionId, event: "turn_start", ...fields }, startedAt),
  );
  return {
    sessionId,
    writeStart: start,
    traces: {
      capture: traces.capture,
      write(type, record, at) {
        start();
        traces.write(type, record, at);
      },
    },
  };
}

/** The app writes a failover's agent_event line itself (app.ts, from the router's onFailover): the start goes first. */
export function startBeforeFailover(router: RouterDeps, trace: TurnTrace | undefined): RouterDeps {
  const onFailover = router.onFailover;
  if (!trace || !onFailover) return router;
  return {
    ...router,
    onFailover: (info) => {
      trace.writeStart();
      onFailover(info);
    },
  };
}
