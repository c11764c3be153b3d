import { defineError } from "../../error.ts";
import type { ChatTarget, MessageButton, OutboundText, SentMessage } from "../channel.ts";
import type { DiscordRest } from "./discord-rest.ts";
import { splitReply } from "./reply-chunks.ts";

/** SUPPRESS_NOTIFICATIONS: an "@silent" message, for every chunk of a reply after the first. */
const SILENT_FLAG = 1 << 12;
const SNOWFLAKE = /^\d{1,20}$/;

export const DiscordBadTarget = defineError<{ id: string }>("discord_bad_target");

/**
 * Nobody is ever pinged by what the model writes: no @everyone, no roles, no users, whatever the text says. The
 * reply reference alone may notify the person asked (Discord's reply ping), and only on a reply's first message.
 */
export function allowedMentions(repliedUser: boolean) {
  return { parse: [] as string[], replied_user: repliedUser };
}

/**
 * A reply as Discord messages, strictly in order (a failed one stops the rest): chunks of ≤ 2,000 code points,
 * the first answering the inbound message (a reference that does not fail when that message is gone), the
 * buttons under the last one.
 */
export async function sendReply(rest: DiscordRest, target: ChatTarget, text: OutboundText): Promise<SentMessage[]> {
  const channel = snowflake(target.chatId);
  const chunks = splitReply(text.markdown);
  const replyTo = target.replyTo !== undefined && SNOWFLAKE.test(target.replyTo) ? target.replyTo : undefined;
  const sent: SentMessage[] = [];
  for (const [index, content] of chunks.entries()) {
    const first = index === 0;
    const silent = !first || text.silent === true;
    const body = {
      content,
      allowed_mentions: allowedMentions(first && replyTo !== undefined && !silent),
      ...(first && replyTo !== undefined
        ? { message_reference: { message_id: replyTo, channel_id: channel, fail_if_not_exists: false } }
        : {}),
      ...(silent ? { flags: SILENT_FLAG } : {}),
      ...(index === chunks.length - 1 && text.buttons?.length ? { components: buttonRow(text.buttons) } : {}),
    };
    const message = await rest.request<{ id: string }>("sending a message", "POST", `/channels/${channel}/messages`, {
      body,
    });
    sent.push({ id: String(message.id) });
  }
  return sent;
}

/** Replaces a message's content with the first chunk of `text` (a draft never holds more than one). */
export async function editReply(rest: DiscordRest, target: ChatTarget, id: string, text: OutboundText): Promise<void> {
  const [content] = splitReply(text.markdown);
  if (!content) return;
  await rest.request("editing a message", "PATCH", `/channels/${snowflake(target.chatId)}/messages/${snowflake(id)}`, {
    body: {
      content,
      allowed_mentions: allowedMentions(false),
      ...(text.buttons?.length ? { components: buttonRow(text.buttons) } : {}),
    },
  });
}

/**
 * The gateway's Approve/Deny buttons as one action row: Approve green (success), Deny red (danger). The
 * custom_id (≤ 100 characters) carries `grant:<token>` / `deny:<token>` and comes back in INTERACTION_CREATE.
 */
export function buttonRow(buttons: readonly MessageButton[]) {
  return [
    {
      type: 1,
      components: buttons.slice(0, 5).map((b) => ({
        type: 2,
        style: b.data.startsWith("deny:") ? 4 : b.data.startsWith("grant:") ? 3 : 2,
        label: [...b.text].slice(0, 80).join(""),
        custom_id: b.data.slice(0, 100),
      })),
    },
  ];
}

/** A channel or message id as a route segment: digits only, so a job's target cannot walk the REST paths. */
export function snowflake(id: string): string {
  const trimmed = id.trim();
  if (!SNOWFLAKE.test(trimmed)) {
    throw DiscordBadTarget(`"${id}" is not a Discord id (a channel id is a number such as 1234567890123456789)`, {
      id,
    });
  }
  return trimmed;
}
