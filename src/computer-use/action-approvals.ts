import type { ConversationKey } from "../memory/messages-contract.ts";

// No 0/O or 1/I/L: the owner may have to type it (the same alphabet as the directory approvals').
const ALPHABET = "ABCDEFGHJKMNPQRSTUVWXYZ23456789";

export type ActionDecision = "confirmed" | "denied" | "timed_out";

/** What /confirm and /deny find for a token: handled here, or not one of ours (a directory request's, maybe). */
export type ActionAnswer = { ok: true; action: string } | { ok: false; reason: string } | undefined;

/**
 * Consequential computer-use actions waiting for the owner (spec: self-knowledge.md, "Computer use"): the turn
 * that asked holds the action until /confirm or /deny (or a channel's ✅/❌, which send those) answers, or
 * approval_timeout_ms refuses it. In memory, unlike directory grants: the waiting turn lives in this process, and
 * a token must die with it. Single use and bound to the conversation that asked.
 */
export type ActionApprovals = {
  request(input: {
    conversation: ConversationKey;
    /** What would happen, for the owner: `type into xterm (XTerm), a terminal`. */
    action: string;
    timeoutMs: number;
    signal: AbortSignal;
  }): { token: string; decision: Promise<ActionDecision> };
  confirm(token: string, conversation: ConversationKey): ActionAnswer;
  deny(token: string, conversation: ConversationKey): ActionAnswer;
};

type Pending = { conversation: ConversationKey; action: string; decide(d: ActionDecision): void };

export function createActionApprovals(): ActionApprovals {
  const pending = new Map<string, Pending>();
  const answer = (token: string, conversation: ConversationKey, decision: ActionDecision): ActionAnswer => {
    const key = token.trim().toUpperCase();
    const entry = pending.get(key);
    if (!entry) return undefined;
    // A token from another conversation burns nothing: the owner may have pasted it in the wrong chat.
    if (!sameConversation(entry.conversation, conversation))
      return { ok: false, reason: "that token belongs to another conversation" };
    pending.delete(key);
    entry.decide(decision);
    return { ok: true, action: entry.action };
  };
  return {
    request({ conversation, action, timeoutMs, signal }) {
      const token = randomToken();
      const decision = new Promise<ActionDecision>((resolve, reject) => {
        const timer = setTimeout(() => settle("timed_out"), timeoutMs);
        const onAbort = () => {
          pending.delete(token);
          clearTimeout(timer);
          reject(signal.reason instanceof Error ? signal.reason : new Error("cancelled"));
        };
        function settle(d: ActionDecision) {
          pending.delete(token);
          clearTimeout(timer);
          signal.removeEventListener("abort", onAbort);
          resolve(d);
        }
        pending.set(token, { conversation, action, decide: settle });
        if (signal.aborted) onAbort();
        else signal.addEventListener("abort", onAbort, { once: true });
      });
      return { token, decision };
    },
    confirm: (token, conversation) => answer(token, conversation, "confirmed"),
    deny: (token, conversation) => answer(token, conversation, "denied"),
  };
}

function sameConversation(a: ConversationKey, b: ConversationKey): boolean {
  return a.channel === b.channel && a.chat === b.chat && (a.thread ?? "") === (b.thread ?? "");
}

function randomToken(): string {
  const bytes = crypto.getRandomValues(new Uint8Array(8));
  return Array.from(bytes, (b) => ALPHABET[b % ALPHABET.length]).join("");
}
