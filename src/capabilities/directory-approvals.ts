import type { ConversationKey } from "../memory/messages-contract.ts";

/** Pending directory grants, single use, bound to one conversation, expiring (see gateway/approvals.ts). */
export type DirectoryApprovals = {
  request(input: { path: string; reason: string; conversation: ConversationKey }): { token: string; expiresAt: number };
  confirm(token: string, conversation: ConversationKey): { ok: true; path: string } | { ok: false; reason: string };
  /** The owner's "no" (/deny, the ❌ button): the request is used up without a grant. */
  deny(token: string, conversation: ConversationKey): { ok: true; path: string } | { ok: false; reason: string };
};
