import type { Message } from "../providers/types.ts";

/**
 * A deliberately simple size estimate: about four characters per token across the vendors' tokenizers
 * for English and code. Compaction only needs to know when a conversation is getting near the window.
 */
export const CHARS_PER_TOKEN = 4;
const IMAGE_TOKENS = 1600;
const DOCUMENT_BYTES_PER_TOKEN = 25;

export function estimateTokens(text: string): number {
  return Math.ceil(text.length / CHARS_PER_TOKEN);
}

export function messageTokens(message: Message): number {
  if (message.role === "tool") return estimateTokens(message.content) + 8;
  let chars = 0;
  for (const part of message.content) {
    if (part.type === "text") chars += part.text.length;
    else if (part.type === "tool_call") chars += part.name.length + JSON.stringify(part.arguments).length;
    // A picture costs the model about this many tokens whatever its base64 length (the vendors' vision pricing).
    else if (part.type === "image") chars += IMAGE_TOKENS * CHARS_PER_TOKEN;
    // A PDF is read as text plus a picture of each page, some 2,000 tokens a page; its page count is unknown here, so
    // its size stands in (a typical page is tens of KB). Its base64 length would overstate it a hundredfold.
    else if (part.type === "document")
      chars += Math.ceil((part.data.length * 3) / 4 / DOCUMENT_BYTES_PER_TOKEN) * CHARS_PER_TOKEN;
    else chars += JSON.stringify(part.data ?? "").length;
  }
  return Math.ceil(chars / CHARS_PER_TOKEN) + 8;
}

export function messagesTokens(messages: readonly Message[]): number {
  return messages.reduce((sum, m) => sum + messageTokens(m), 0);
}
