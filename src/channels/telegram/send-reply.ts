import type { ChatTarget, MessageButton, OutboundText, SentMessage } from "../channel.ts";
import { type BotApi, TelegramApiError } from "./bot-api.ts";
import { type CodeFile, renderReply } from "./reply-chunks.ts";

/** A send rate-limited for longer than this fails rather than holding the conversation's queue. */
const MAX_SEND_WAIT_S = 30;

/** chat_id and, in a forum topic, message_thread_id: where every outbound call goes. */
export function chatParams(target: ChatTarget): Record<string, unknown> {
  return {
    chat_id: idValue(target.chatId),
    ...(target.thread !== undefined ? { message_thread_id: Number(target.thread) } : {}),
  };
}

/**
 * A reply as Telegram messages, strictly in order (a failed one stops the rest): HTML chunks of ~1,400 units, each
 * long code block right after its chunk as `code-N.txt`, the buttons under the last chunk. Only the first message
 * notifies; it answers the inbound message. A chunk Telegram cannot parse goes once more as plain text.
 */
export async function sendReply(api: BotApi, target: ChatTarget, text: OutboundText): Promise<SentMessage[]> {
  const chunks = renderReply(text.markdown);
  const replyTo = numericId(target.replyTo);
  const sent: SentMessage[] = [];
  for (const [index, chunk] of chunks.entries()) {
    const params: Record<string, unknown> = {
      ...chatParams(target),
      text: chunk.html,
      parse_mode: "HTML",
      link_preview_options: { is_disabled: true },
      ...(index > 0 || text.silent ? { disable_notification: true } : {}),
      ...(index === 0 && replyTo !== undefined
        ? { reply_parameters: { message_id: replyTo, allow_sending_without_reply: true } }
        : {}),
      ...(index === chunks.length - 1 && text.buttons?.length ? { reply_markup: keyboard(text.buttons) } : {}),
    };
    sent.push(await sendHtml(api, "sendMessage", params, chunk.plain));
    for (const file of chunk.files) sent.push(await sendCodeFile(api, target, file));
  }
  return sent;
}

/** Replaces a message's text with the first chunk of `text` (a draft never holds more than one). */
export async function editReply(api: BotApi, target: ChatTarget, id: string, text: OutboundText): Promise<void> {
  const [chunk] = renderReply(text.markdown);
  if (!chunk) return;
  const params: Record<string, unknown> = {
    chat_id: idValue(target.chatId),
    message_id: Number(id),
    text: chunk.html,
    parse_mode: "HTML",
    link_preview_options: { is_disabled: true },
    ...(text.buttons?.length ? { reply_markup: keyboard(text.buttons) } : {}),
  };
  try {
    await sendHtml(api, "editMessageText", params, chunk.plain);
  } catch (err) {
    // The same text again: the message already says what it should.
    if (!notModified(err)) throw err;
  }
}

export function keyboard(buttons: readonly MessageButton[]): { inline_keyboard: unknown[][] } {
  return { inline_keyboard: [buttons.map((b) => ({ text: b.text, callback_data: b.data }))] };
}

export function notModified(err: unknown): boolean {
  return TelegramApiError.is(err) && /message is not modified/i.test(err.data.description);
}

async function sendHtml(
  api: BotApi,
  method: "sendMessage" | "editMessageText",
  params: Record<string, unknown>,
  plain: string,
): Promise<SentMessage> {
  let result: unknown;
  try {
    result = await rateLimited(() => api.call(method, params));
  } catch (err) {
    if (!(TelegramApiError.is(err) && err.data.status === 400 && /can't parse entities/i.test(err.data.description))) {
      throw err;
    }
    const { parse_mode: _, ...raw } = params;
    result = await rateLimited(() => api.call(method, { ...raw, text: plain }));
  }
  return { id: String((result as { message_id?: unknown })?.message_id ?? "") };
}

async function sendCodeFile(api: BotApi, target: ChatTarget, file: CodeFile): Promise<SentMessage> {
  const result = await rateLimited(() =>
    api.upload(
      "sendDocument",
      { ...chatParams(target), caption: file.caption, disable_notification: true },
      { field: "document", bytes: new TextEncoder().encode(file.content), filename: file.filename, mime: "text/plain" },
    ),
  );
  return { id: String((result as { message_id?: unknown })?.message_id ?? "") };
}

/** One more try after a 429's retry_after, when Telegram asks for a short wait. */
export async function rateLimited<T>(call: () => Promise<T>): Promise<T> {
  try {
    return await call();
  } catch (err) {
    const seconds = TelegramApiError.is(err) && err.data.status === 429 ? err.data.retryAfter : undefined;
    if (seconds === undefined || seconds > MAX_SEND_WAIT_S) throw err;
    await new Promise((resolve) => setTimeout(resolve, Math.max(seconds, 0.2) * 1000));
    return call();
  }
}

function numericId(id: string | undefined): number | undefined {
  return id !== undefined && /^\d+$/.test(id) ? Number(id) : undefined;
}

/** Chat ids are integers on the wire (a @channelname stays a string). */
function idValue(id: string): number | string {
  return /^-?\d+$/.test(id) ? Number(id) : id;
}
