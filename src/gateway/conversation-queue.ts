import type { ConversationKey } from "../memory/messages-contract.ts";
import type { ConversationQueue } from "./conversation-queue-contract.ts";

type Pending = { run: (signal: AbortSignal) => Promise<void> };

/**
 * At most one turn per conversation (channel, chat, thread) and a FIFO of the messages that arrived meanwhile;
 * different conversations run in parallel. A newer message waits, it never cancels the active turn. /stop is the
 * one way to end work early: every active turn aborted, every queue emptied.
 */
export function createConversationQueue(): ConversationQueue {
  const conversations = new Map<string, { active?: AbortController; pending: Pending[] }>();

  const keyOf = (key: ConversationKey) => `${key.channel}\u001f${key.chat}\u001f${key.thread ?? ""}`;

  function drain(id: string): void {
    const slot = conversations.get(id);
    if (!slot || slot.active) return;
    const next = slot.pending.shift();
    if (!next) {
      conversations.delete(id);
      return;
    }
    const controller = new AbortController();
    slot.active = controller;
    void next
      .run(controller.signal)
      .catch(() => {})
      .finally(() => {
        if (slot.active === controller) slot.active = undefined;
        drain(id);
      });
  }

  return {
    enqueue(key: ConversationKey, run: (signal: AbortSignal) => Promise<void>): void {
      const id = keyOf(key);
      const slot = conversations.get(id) ?? { pending: [] };
      conversations.set(id, slot);
      slot.pending.push({ run });
      drain(id);
    },

    stopAll(reason: unknown): { turns: number; queued: number } {
      let turns = 0;
      let queued = 0;
      for (const slot of conversations.values()) {
        queued += slot.pending.length;
        slot.pending = [];
        if (slot.active && !slot.active.signal.aborted) {
          turns++;
          slot.active.abort(reason);
        }
      }
      return { turns, queued };
    },

    active(): number {
      let n = 0;
      for (const slot of conversations.values()) if (slot.active) n++;
      return n;
    },

    async idle(): Promise<void> {
      while (conversations.size) await new Promise((resolve) => setTimeout(resolve, 5));
    },
  };
}
