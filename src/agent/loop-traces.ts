import type { TraceContext } from "../observability/traces.ts";
import type { FailoverInfo, RouterDeps } from "../providers/router.ts";
import type { ModelRequest, ToolCallPart } from "../providers/types.ts";

/** What one model call was asked and answered, for traces that capture content. */
export type CallContent = () => {
  request: Omit<ModelRequest, "model" | "effort">;
  text: string;
  calls: ToolCallPart[];
};

/**
 * The router with an llm_call trace line per attempt (retries included). Body-free unless the traces
 * capture content (FERMIX_TRACE_CONTENT=1), then the whole request and answer ride along.
 */
export function tracedRouter(router: RouterDeps, trace: TraceContext | undefined, content: CallContent): RouterDeps {
  if (!trace) return router;
  return {
    ...router,
    // The failover's own agent_event is written where it is logged (app.ts); here it learns the session.
    onFailover: (f) => router.onFailover?.({ ...f, sessionId: trace.sessionId }),
    onAttempt: (a) => {
      router.onAttempt?.(a);
      const body = trace.traces.capture ? content() : undefined;
      trace.traces.write("llm_call", {
        session_id: trace.sessionId,
        provider: a.provider,
        model: a.model,
        attempt: a.attempt,
        duration_ms: a.durationMs,
        status: a.failure ? "error" : "ok",
        ...(a.failure ? { error_class: a.failure.class, http_status: a.failure.status } : {}),
        ...(a.stopReason ? { stop_reason: a.stopReason } : {}),
        ...(a.usage ? { input_tokens: a.usage.inputTokens, output_tokens: a.usage.outputTokens } : {}),
        tool_calls: a.toolCalls,
        ...(body ? { input: body.request, output: { text: body.text, tool_calls: body.calls } } : {}),
      });
    },
  };
}

/** One tool_exec line; with content capture, the arguments and the whole output too. */
export function traceToolExec(
  trace: TraceContext | undefined,
  call: ToolCallPart,
  outcome: { name: string; isError?: boolean; durationMs: number; content: string; trace?: Record<string, unknown> },
): void {
  if (!trace) return;
  trace.traces.write("tool_exec", {
    session_id: trace.sessionId,
    tool: outcome.name,
    status: outcome.isError ? "error" : "ok",
    duration_ms: outcome.durationMs,
    output_chars: outcome.content.length,
    // The tool's own body-free fields (computer_use: the action and the coordinates as converted).
    ...outcome.trace,
    ...(trace.traces.capture ? { arguments: call.arguments, output: outcome.content } : {}),
  });
}

/**
 * The agent_event line of one failover (besides its log line): from/to route and the failure's class, so a turn
 * that answered from a fallback is visible in the traces. Body-free: the provider's own sentence, never a prompt.
 */
export function failoverEvent(f: FailoverInfo): Record<string, unknown> {
  return {
    ...(f.sessionId ? { session_id: f.sessionId } : {}),
    event: "provider_failover",
    from: f.from,
    from_model: f.fromModel,
    to: f.to,
    to_model: f.toModel,
    reason: f.failure.class,
    ...(f.failure.status !== undefined ? { http_status: f.failure.status } : {}),
    ...(f.failure.vendorCode ? { vendor_code: f.failure.vendorCode } : {}),
    message: f.failure.message,
  };
}
