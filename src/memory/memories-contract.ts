import type { HistoryFilter, HistoryHit } from "./history-search.ts";
import type { ConversationKey } from "./messages-contract.ts";

/** Four categories about the user (USER.md) and two about the work (MEMORY.md); CATEGORIES lists them in order. */
export type Category = "identity" | "preference" | "interest" | "goal" | "context" | "directive";

export type Fact = {
  id: number;
  scope: string;
  category: Category;
  key: string;
  value: string;
  confidence: number;
  source: string;
  createdAt: number;
  updatedAt: number;
};

export type StoreInput = {
  scope: string;
  category: Category;
  key: string;
  value: string;
  confidence?: number;
  /** Where the fact came from: a conversation, a job, the review. */
  source: string;
};

export type StoreOutcome =
  | { ok: true; status: "created" | "replaced" | "unchanged"; fact: Fact; previous?: Fact }
  | { ok: false; error: string };

export type RecallSource = "memories" | "history" | "all";

export type RecallInput = {
  /** Memory scopes that may be read; "all" only for an operator asking for everything. */
  scopes: readonly string[] | "all";
  query?: string;
  key?: string;
  source: RecallSource;
  /** Conversations whose history may be read; none when absent. */
  historyConversations?: HistoryFilter;
  limit: number;
};

export type MemoryHit = Omit<Fact, "createdAt"> & { from: "memory"; score: number };
export type RecallHit = MemoryHit | HistoryHit;
export type RecallResult =
  | { ok: true; mode: "key" | "search" | "recent"; hits: RecallHit[]; terms?: string[] }
  | { ok: false; error: string };

export type SourceCount = { scope: string; category: Category; count: number };

/** Durable facts, plus recall over them and over conversation history. */
export interface MemoryStore {
  /**
   * Upserts by (scope, key). A different value replaces the live fact, which stays stored as superseded;
   * the same value only refreshes it. Bad input comes back as an error, never as a half-written row.
   */
  store(input: StoreInput): StoreOutcome;

  /** Ends a fact without a successor (the review's "retire"); false when there was no live fact. */
  retire(scope: string, key: string): boolean;

  /**
   * A key lookup, a full-text search (each source bm25-ranked, the two interleaved), or with neither the
   * most recent facts. The caller has already narrowed scopes and conversations to what it may read.
   */
  recall(input: RecallInput): RecallResult;

  /** Live facts per scope and category, and how much history there is. */
  sources(): { memories: SourceCount[]; history: { conversations: number; messages: number } };

  liveFacts(scope: string): Fact[];

  /** Records that a trust level spoke in a conversation, which decides what the "owner" scope reads. */
  noteConversation(key: ConversationKey, trust: "operator" | "guest"): void;
}
