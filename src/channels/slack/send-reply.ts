import type { ChatTarget, OutboundText, SentMessage } from "../channel.ts";
import { SlackRateLimited } from "./api-errors.ts";
import { renderFirst, renderReply } from "./mrkdwn.ts";
import type { SlackApi } from "./web-api.ts";

/** A send rate-limited for longer than this fails rather than holding the conversation's queue. */
const MAX_SEND_WAIT_S = 30;

/** channel and, in a thread (an app mention's), thread_ts: where every outbound call goes. */
export function whereParams(target: ChatTarget): Record<string, string> {
  return { channel: target.chatId, ...(target.thread ? { thread_ts: target.thread } : {}) };
}

/**
 * A reply as Slack messages, strictly in order (a failed one stops the rest): mrkdwn chunks of at most 40,000
 * characters, in the mention's thread when there is one. Link previews stay off, as on Telegram. Slack has no
 * buttons here (approveButtons is off) and no silent send.
 */
export async function sendReply(api: SlackApi, target: ChatTarget, text: OutboundText): Promise<SentMessage[]> {
  const sent: SentMessage[] = [];
  for (const chunk of renderReply(text.markdown)) {
    const answer = await rateLimited(() =>
      api.call("chat.postMessage", { ...whereParams(target), text: chunk, unfurl_links: false, unfurl_media: false }),
    );
    sent.push({ id: String(answer.ts ?? "") });
  }
  return sent;
}

/** Replaces a message's text with the first chunk of `text` (a draft never holds more than one). */
export async function editReply(api: SlackApi, target: ChatTarget, id: string, text: OutboundText): Promise<void> {
  const chunk = renderFirst(text.markdown);
  if (!chunk) return;
  await api.call("chat.update", { channel: target.chatId, ts: id, text: chunk });
}

export async function deleteReply(api: SlackApi, target: ChatTarget, id: string): Promise<void> {
  await api.call("chat.delete", { channel: target.chatId, ts: id });
}

/** One more try after a 429's Retry-After, when Slack asks for a short wait. */
export async function rateLimited<T>(call: () => Promise<T>): Promise<T> {
  try {
    return await call();
  } catch (err) {
    if (!SlackRateLimited.is(err) || err.data.retryAfter > MAX_SEND_WAIT_S) throw err;
    await new Promise((resolve) => setTimeout(resolve, Math.max(err.data.retryAfter, 0.2) * 1000));
    return call();
  }
}
