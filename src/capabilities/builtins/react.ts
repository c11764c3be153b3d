import * as v from "valibot";
import { lazySchema } from "../../valibot-lazy.ts";
import type { ChannelReply } from "../channel-reply.ts";
import { type AnyTool, defineTool } from "../tool.ts";

const DESCRIPTION =
  "React to the user's current message with one emoji instead of a text reply (an acknowledgement); the turn ends there unless you also write an answer.";

function defineReact(emoji: v.GenericSchema<string>): AnyTool {
  return defineTool({
    name: "react",
    description: DESCRIPTION,
    policy: "meta",
    readOnly: false,
    parameters: lazySchema(() => v.object({ emoji })),
    help: "Reacts to the message this turn answers. On a platform with a fixed set of reactions (Telegram) only those emoji are accepted. A lone successful reaction is the whole answer: no text bubble follows.",
    forChannel: variantFor,
    async execute(args: { emoji: string }, ctx) {
      const channel = ctx.channel;
      if (!channel?.react) return { isError: true, content: "react requires a channel reply context" };
      if (channel.reactions?.length && !channel.reactions.includes(args.emoji)) {
        return {
          isError: true,
          content: `${channel.name} does not accept ${args.emoji} as a reaction; use one of: ${channel.reactions.join(" ")}`,
        };
      }
      await channel.react(args.emoji);
      return { content: `Reacted with ${args.emoji}`, endsTurn: true };
    },
  });
}

/** Any single emoji: platforms that take any reaction. */
export const react = defineReact(v.pipe(v.string(), v.minLength(1), v.maxLength(32)));

// One tool object per reaction list, so its provider schema (an enum) is built once.
const restricted = new Map<string, AnyTool>();

/** The react this channel takes: absent where it cannot react, an enum of its emoji where it restricts them. */
function variantFor(channel: ChannelReply): AnyTool | undefined {
  if (!channel.react) return undefined;
  const allowed = channel.reactions ?? [];
  if (!allowed.length) return react;
  const key = allowed.join(" ");
  let tool = restricted.get(key);
  if (!tool) {
    tool = defineReact(v.picklist(allowed as [string, ...string[]], `one of: ${key}`));
    restricted.set(key, tool);
  }
  return tool;
}
