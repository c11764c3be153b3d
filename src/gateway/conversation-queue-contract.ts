import type { ConversationKey } from "../memory/messages-contract.ts";

/** One turn at a time per conversation, the rest queued in order; /stop ends them all. */
export interface ConversationQueue {
  /** Queues work for a conversation; it runs after everything queued there before it. */
  enqueue(key: ConversationKey, run: (signal: AbortSignal) => Promise<void>): void;

  /** Aborts every active turn and drops every queued message; says how many of each. */
  stopAll(reason: unknown): { turns: number; queued: number };

  /** Turns running now, across conversations. */
  active(): number;

  /** Resolves once nothing runs or waits (tests). */
  idle(): Promise<void>;
}
