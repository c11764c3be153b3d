import type { ConversationKey } from "../../memory/messages-contract.ts";

export type SoulDraft = {
  /** SOUL.md as the review read it: applying over a file that changed since is refused. */
  base: string;
  proposed: string;
  rationale: string;
  diff: string;
  warning?: string;
  conversation: ConversationKey;
  expiresAt: number;
};

export type FoundDraft = { ok: true; draft: SoulDraft } | { ok: false; reason: string };

/** /soul review's drafts, waiting for /soul apply TOKEN: bound to the conversation that asked, single use. */
export interface SoulDrafts {
  save(draft: Omit<SoulDraft, "expiresAt">): { token: string; expiresAt: number };

  /** For /soul diff: the draft stays. */
  get(token: string, conversation: ConversationKey): FoundDraft;

  /** For /soul apply: a draft found is used up. */
  take(token: string, conversation: ConversationKey): FoundDraft;
}
