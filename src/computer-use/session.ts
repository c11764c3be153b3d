import type { ConversationKey } from "../memory/messages-contract.ts";

/**
 * /pause and /resume, per conversation: the owner takes the mouse and keyboard back in the middle of a
 * computer-use task. A pause holds the turn's *next* action (the one running finishes: an X request is not
 * interruptible halfway), the turn and its session stay, and /resume lets it go on; /stop cancels the turn, which
 * also frees a held action. Kept in memory: a pause belongs to a turn running in this process.
 */
export type ComputerUseSessions = {
  /** Resolves once the conversation is not paused (at once when it is not); rejects when `signal` aborts. */
  whenRunnable(conversation: ConversationKey, signal: AbortSignal): Promise<void>;
  /** Whether an action of this conversation is being held right now. */
  holding(conversation: ConversationKey): boolean;
  pause(conversation: ConversationKey): "paused" | "already_paused";
  resume(conversation: ConversationKey): "resumed" | "not_paused";
  /** Called before each action of a turn, with the turn's signal: counts this turn's actions (max_actions). */
  countAction(signal: AbortSignal): number;
};

type Paused = { waiters: Set<() => void> };

export function createComputerUseSessions(): ComputerUseSessions {
  const paused = new Map<string, Paused>();
  // A turn's signal is the one object every tool call of that turn shares, and nothing else does.
  const actions = new WeakMap<AbortSignal, number>();
  return {
    whenRunnable(conversation, signal) {
      const entry = paused.get(keyOf(conversation));
      if (!entry) return Promise.resolve();
      return new Promise<void>((resolve, reject) => {
        const release = () => {
          signal.removeEventListener("abort", onAbort);
          entry.waiters.delete(release);
          resolve();
        };
        const onAbort = () => {
          entry.waiters.delete(release);
          reject(signal.reason instanceof Error ? signal.reason : new Error("cancelled"));
        };
        if (signal.aborted) return onAbort();
        entry.waiters.add(release);
        signal.addEventListener("abort", onAbort, { once: true });
      });
    },
    holding: (conversation) => (paused.get(keyOf(conversation))?.waiters.size ?? 0) > 0,
    pause(conversation) {
      const key = keyOf(conversation);
      if (paused.has(key)) return "already_paused";
      paused.set(key, { waiters: new Set() });
      return "paused";
    },
    resume(conversation) {
      const key = keyOf(conversation);
      const entry = paused.get(key);
      if (!entry) return "not_paused";
      paused.delete(key);
      for (const release of [...entry.waiters]) release();
      return "resumed";
    },
    countAction(signal) {
      const count = (actions.get(signal) ?? 0) + 1;
      actions.set(signal, count);
      return count;
    },
  };
}

function keyOf(c: ConversationKey): string {
  return `${c.channel}\u0000${c.chat}\u0000${c.thread ?? ""}`;
}
