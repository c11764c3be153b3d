import type { Message } from "../providers/types.ts";

export type ConversationKey = { channel: string; chat: string; thread?: string };

export type StoredMeta = {
  turnId: string;
  provider?: string;
  model?: string;
  /**
   * The chat messages this turn answers (memory/inbound.ts): settled in the same transaction as the turn, so an
   * answer that was recorded is never run again after a crash.
   */
  answers?: { ids: readonly number[]; as: "answered" | "stopped" };
  /**
   * Writes that belong with the turn (the conversation's note for the owner's recall scope), done first in its
   * transaction: one memory.db commit for both, and one that throws leaves nothing of either.
   */
  alongside?: () => void;
};

export type ConversationWindow = {
  summary?: string;
  rows: Array<{ id: number; turnId: string; message: Message }>;
};

/** Conversation history: what each turn committed, and the window the next turn replays. */
export interface MessageStore {
  /** Commits one turn's messages atomically: all of them or, on any failure, none. */
  commitTurn(key: ConversationKey, messages: Message[], meta: StoredMeta): number;

  /** What a turn replays: the latest compaction summary, then every message after it. */
  window(key: ConversationKey): ConversationWindow;

  history(key: ConversationKey): Message[];

  /** Records that `text` now stands in for every message up to `coversUpTo`; the messages stay stored. */
  saveSummary(key: ConversationKey, coversUpTo: number, text: string): void;

  /**
   * /new: the next turn starts with no history. Recorded as an empty summary covering every message so far, so
   * the window skips them while they stay stored and searchable (recall still finds them); a later compaction
   * folds only what came after. Returns how many messages the window set aside (0: it was already fresh).
   */
  startFresh(key: ConversationKey): number;
}
