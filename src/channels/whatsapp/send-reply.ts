import type { ChatTarget, OutboundText, SentMessage } from "../channel.ts";
import type { GraphApi } from "./graph-api.ts";
import { replyChunks } from "./reply-chunks.ts";

/** What every Cloud API message to one person starts with. */
export function messageTo(to: string): Record<string, unknown> {
  return { messaging_product: "whatsapp", recipient_type: "individual", to };
}

/**
 * A reply as WhatsApp text messages, strictly in order (a failed one stops the rest), each at most 4,096 characters
 * after styling, link previews off. WhatsApp has no silent messages and no buttons here: approvals keep the
 * tap-to-copy `/confirm TOKEN` line.
 */
export async function sendReply(
  api: GraphApi,
  phoneNumberId: string,
  target: ChatTarget,
  text: OutboundText,
): Promise<SentMessage[]> {
  const sent: SentMessage[] = [];
  for (const body of replyChunks(text.markdown)) {
    const answer = await api.post<SendAnswer>(`${phoneNumberId}/messages`, {
      ...messageTo(target.chatId),
      type: "text",
      text: { preview_url: false, body },
    });
    sent.push({ id: sentId(answer) });
  }
  return sent;
}

export type SendAnswer = { messages?: Array<{ id?: unknown }> };

/** The wamid Graph gives the message it accepted. */
export function sentId(answer: SendAnswer): string {
  const id = answer?.messages?.[0]?.id;
  return typeof id === "string" ? id : "";
}
