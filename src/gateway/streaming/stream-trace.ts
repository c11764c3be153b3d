import type { Traces } from "../../observability/traces.ts";

/**
 * The moments of a reply on a chat that a `channel_stream` trace line records (issue 27): `open` when its first
 * message goes out, `edit` for each change to a draft, `block` for each message before the answer (a finished
 * thought, a long answer's chunk, a `💭` line), `seal` once the answer is delivered, `discard` when a stopped or
 * failed turn leaves it.
 */
export type StreamPhase = "open" | "edit" | "block" | "seal" | "discard";

/** What one phase adds to its line: sizes only, never the text (traces are body-free). */
export type PhaseFields = { chars?: number; thought?: true };

export type StreamTrace = (phase: StreamPhase, fields?: PhaseFields) => void;

export const NO_STREAM_TRACE: StreamTrace = () => {};

/** Where a reply's lines go: the turn's session, so a stream reads next to the turn's llm_call and tool_exec lines. */
export type StreamTraceAt = { traces: Traces; sessionId: string; channel: string; mode: string };

export function streamTrace(at: StreamTraceAt | undefined): StreamTrace {
  if (!at) return NO_STREAM_TRACE;
  return (phase, fields = {}) =>
    at.traces.write("channel_stream", {
      session_id: at.sessionId,
      channel: at.channel,
      mode: at.mode,
      phase,
      ...fields,
    });
}
