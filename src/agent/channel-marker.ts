import type { AssistantMessage, Message } from "../providers/types.ts";

const MARKERS: Record<string, string> = {
  react: "(Reacted to the previous message.)",
  send_attachment: "(Sent an attachment in reply.)",
};

/**
 * A channel turn whose whole answer was a reaction or a file has no text to commit; this marker stands in for
 * it, so history shows the message was answered (and stays valid: a tool result is never the last word, which
 * Mistral would refuse before the next user message). Undefined when the turn did neither.
 */
export function channelActionMarker(added: readonly Message[]): AssistantMessage | undefined {
  for (const m of [...added].reverse()) {
    if (m.role === "tool" && !m.isError && MARKERS[m.toolName]) {
      return { role: "assistant", content: [{ type: "text", text: MARKERS[m.toolName]! }] };
    }
  }
  return undefined;
}
