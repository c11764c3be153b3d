import type { ChannelAdapter, ChatTarget } from "../channels/channel.ts";
import type { ConversationKey } from "../memory/messages-contract.ts";
import { APPROVAL_TTL_MS } from "./approvals.ts";
import type { TurnImage } from "./media.ts";

const CONFIRM_LINE = /\/confirm ([A-Z0-9]{6,12})\b/;

type Waiting = { conversation: ConversationKey; text: string; images: TurnImage[]; expiresAt: number };

/**
 * A turn's directory-access requests in a chat: sent with one-tap ✅/❌ buttons where the channel has them (the raw
 * token line left out), and remembered so that a granted request re-runs. An entry outlives its token by nothing:
 * a request nobody approved is dropped once its token has expired.
 */
export function createApprovalNotices(deps: {
  now: () => number;
  reply(adapter: ChannelAdapter, target: ChatTarget, text: string): Promise<void>;
  log: { warn(msg: string): void };
}) {
  const waiting = new Map<string, Waiting>();
  return {
    async send(
      adapter: ChannelAdapter,
      target: ChatTarget,
      turn: { conversation: ConversationKey; notice: string; text: string; images: TurnImage[] },
    ): Promise<void> {
      const token = CONFIRM_LINE.exec(turn.notice)?.[1];
      if (token) {
        const at = deps.now();
        for (const [old, entry] of waiting) if (entry.expiresAt <= at) waiting.delete(old);
        waiting.set(token, {
          conversation: turn.conversation,
          text: turn.text,
          images: turn.images,
          expiresAt: at + APPROVAL_TTL_MS,
        });
      }
      if (!token || !adapter.capabilities.approveButtons) return deps.reply(adapter, target, turn.notice);
      const visible = turn.notice
        .split("\n")
        .filter((line) => !CONFIRM_LINE.test(line))
        .join("\n");
      try {
        await adapter.send(target, {
          markdown: visible,
          buttons: [
            { text: "✅ Approve", data: `grant:${token}` },
            { text: "❌ Deny", data: `deny:${token}` },
          ],
        });
      } catch (err) {
        deps.log.warn(`${adapter.name}: could not send an approval request: ${(err as Error).message}`);
      }
    },
    /** The request a granted token re-runs, once; undefined when none waits for it. */
    take(token: string): Waiting | undefined {
      const found = waiting.get(token);
      waiting.delete(token);
      return found;
    },
  };
}
