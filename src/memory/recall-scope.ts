import type { HistoryFilter } from "./history-search.ts";
import type { ConversationKey } from "./messages-contract.ts";
import { conversationScope, jobScope, OWNER_SCOPE } from "./scopes.ts";

export const REQUESTED_SCOPES = ["current", "owner", "all"] as const;
export type RequestedScope = (typeof REQUESTED_SCOPES)[number];

/**
 * The caller as memory sees it: its trust, the conversation it speaks in, and for a scheduled run its job.
 * Declared here rather than taken from capabilities/ so memory/ imports nothing above it; a tool's
 * `Caller` plus its context's conversation fits.
 */
export type MemoryCaller = {
  trust: "operator" | "guest";
  conversation: ConversationKey;
  /** Set for a scheduled run: it reads and writes its own job memory and nothing else. */
  jobId?: string;
};

export type EffectiveScope = {
  /** What was actually granted, for telling the model. */
  granted: RequestedScope | "guest" | "job";
  /** Memory scopes that may be read. */
  memoryScopes: readonly string[] | "all";
  /** Conversations whose history may be read (an empty list: none). */
  history: HistoryFilter;
  /** Where this caller's memory_store writes. */
  writeScope: string;
  /** The request asked for more than the caller may have and was narrowed. */
  narrowed: boolean;
};

/**
 * `requested` is a request, not an authorization: the ceiling comes from the caller, and the argument can
 * only pick within it. An operator chooses between this conversation, the owner's memory with every
 * conversation the owner took part in, and everything. A guest always gets its own conversation's history
 * and facts, whatever it names; a job always gets its own job memory. Anything that is not exactly the
 * operator is treated as a guest, so a new or missing trust value fails closed.
 */
export function effectiveScope(caller: MemoryCaller, requested: RequestedScope = "current"): EffectiveScope {
  if (caller.jobId !== undefined) {
    const own = jobScope(caller.jobId);
    return { granted: "job", memoryScopes: [own], history: [], writeScope: own, narrowed: requested !== "current" };
  }
  if (caller.trust !== "operator") {
    const own = conversationScope(caller.conversation);
    return {
      granted: "guest",
      memoryScopes: [own],
      history: [caller.conversation],
      writeScope: own,
      narrowed: requested !== "current",
    };
  }
  const base = { writeScope: OWNER_SCOPE, narrowed: false };
  if (requested === "all") return { ...base, granted: "all", memoryScopes: "all", history: "all" };
  if (requested === "owner") return { ...base, granted: "owner", memoryScopes: [OWNER_SCOPE], history: "owner" };
  return {
    ...base,
    granted: "current",
    memoryScopes: [OWNER_SCOPE, conversationScope(caller.conversation)],
    history: [caller.conversation],
  };
}
