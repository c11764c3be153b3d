import type { ReplySink } from "./streaming/reply-sink-contract.ts";

/** How a channel reply that stopped at the model's output limit ends, so a cut answer never reads as complete. */
export const TRUNCATION_MARKER = " …[cut at the output limit]";

/** A reply sink whose `finishAnswer` ends a truncated answer with the marker. */
export type MarkableSink = ReplySink & { finishAnswer(text: string, truncated?: boolean): Promise<void> };

/**
 * Wraps a sink to watch the current item's streamed text: a streaming sink (block, draft) gets the marker as the
 * answer's last delta, so what it showed matches the answer it seals; a non-streaming one gets it in the answer.
 */
export function markableSink(sink: ReplySink): MarkableSink {
  let streamed = false;
  return {
    onText(delta) {
      if (delta) streamed = true;
      sink.onText(delta);
    },
    onItemEnd() {
      streamed = false;
      sink.onItemEnd();
    },
    onThought: (summary) => sink.onThought(summary),
    finish: (text) => sink.finish(text),
    discard: () => sink.discard(),
    async finishAnswer(text, truncated) {
      if (!truncated) return sink.finish(text);
      if (streamed) sink.onText(TRUNCATION_MARKER);
      return sink.finish(`${text}${TRUNCATION_MARKER}`);
    },
  };
}
