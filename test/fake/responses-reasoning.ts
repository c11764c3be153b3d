/**
 * The reasoning item of a fake Responses answer, in the order and shape OpenAI streams it: the item, then per
 * summary part `reasoning_summary_part.added`, the text deltas, `reasoning_summary_text.done` and
 * `reasoning_summary_part.done`, then the finished item. As on the real API, the summary parts are written only
 * when the request asked for them (`reasoning.summary`), and `encrypted_content` only when it was included.
 */
import type { RenderableReply } from "./types.ts";
import { ids, splitEven } from "./wire-kit.ts";

type Item = Record<string, any>;
type Emit = (type: string, fields: Record<string, unknown>) => void;

/** The finished reasoning item of `reply`, or undefined when the script gives it no reasoning. */
export function reasoningItem(reply: RenderableReply, body: Record<string, any>): Item | undefined {
  const parts = reply.kind === "text" || reply.kind === "tool_calls" ? reply.reasoning : undefined;
  if (!parts) return undefined;
  const summarised = typeof body.reasoning?.summary === "string";
  const encrypted = Array.isArray(body.include) && body.include.includes("reasoning.encrypted_content");
  return {
    id: ids.hex("rs_", 48),
    type: "reasoning",
    summary: summarised ? parts.map((text) => ({ type: "summary_text", text })) : [],
    ...(encrypted ? { encrypted_content: `gAAAAA${ids.alnum("", 64)}` } : {}),
  };
}

/** The stream events of one reasoning item at `index`. */
export function reasoningFrames(item: Item, index: number, emit: Emit): void {
  const routing = { item_id: item.id, output_index: index };
  emit("response.output_item.added", { output_index: index, item: { id: item.id, type: "reasoning", summary: [] } });
  (item.summary as Array<{ type: string; text: string }>).forEach((part, summary_index) => {
    const at = { ...routing, summary_index };
    emit("response.reasoning_summary_part.added", { ...at, part: { type: "summary_text", text: "" } });
    for (const delta of splitEven(part.text)) {
      emit("response.reasoning_summary_text.delta", { ...at, delta, obfuscation: ids.alnum("", 8) });
    }
    emit("response.reasoning_summary_text.done", { ...at, text: part.text });
    emit("response.reasoning_summary_part.done", { ...at, part });
  });
  emit("response.output_item.done", { output_index: index, item });
}
