import type { ConversationKey } from "../../memory/messages-contract.ts";
import { sha256Hex } from "../../runtime/hash.ts";
import type { SqlDatabase } from "../../runtime/sqlite.ts";
import type { FoundDraft, SoulDraft, SoulDrafts } from "./soul-drafts-contract.ts";

/** Long enough to read the diff; short enough that an old draft is never applied over a newer file. */
export const SOUL_DRAFT_TTL_MS = 5 * 60_000;
// No 0/O or 1/I/L: the owner may have to type it.
const ALPHABET = "ABCDEFGHJKMNPQRSTUVWXYZ23456789";
const PREFIX = "soul.draft.";

/**
 * /soul review's drafts, waiting for /soul apply TOKEN. Kept in memory.db (memory_state, under a hash of the
 * token) rather than in memory, so a one-shot `fermix ask -s ID "/soul apply …"` finds what the previous ask
 * drafted. Bound to the conversation that asked, single use, expiring after five minutes.
 */
export function createSoulDrafts(db: SqlDatabase, now: () => number = Date.now): SoulDrafts {
  const read = db.query("SELECT value FROM memory_state WHERE key = $key");
  const write = db.query("INSERT INTO memory_state (key, value) VALUES ($key, $value)");
  const remove = db.query("DELETE FROM memory_state WHERE key = $key");
  const expired = db.query(
    "DELETE FROM memory_state WHERE key LIKE 'soul.draft.%' AND json_extract(value, '$.expiresAt') < $now",
  );
  const keyOf = (token: string) => PREFIX + sha256Hex(token.trim().toUpperCase());

  const find = (token: string, conversation: ConversationKey): FoundDraft => {
    const row = read.get({ key: keyOf(token) }) as { value: string } | null;
    if (!row) return { ok: false, reason: "no draft has that token (it may have expired or been applied)" };
    const draft = JSON.parse(row.value) as SoulDraft;
    if (!sameConversation(draft.conversation, conversation))
      return { ok: false, reason: "that draft belongs to another conversation" };
    if (draft.expiresAt < now()) return { ok: false, reason: "that draft has expired; run /soul review again" };
    return { ok: true, draft };
  };

  return {
    save(draft: Omit<SoulDraft, "expiresAt">): { token: string; expiresAt: number } {
      expired.run({ now: now() });
      const token = randomToken();
      const expiresAt = now() + SOUL_DRAFT_TTL_MS;
      write.run({ key: keyOf(token), value: JSON.stringify({ ...draft, expiresAt }) });
      return { token, expiresAt };
    },

    get: find,

    take(token: string, conversation: ConversationKey): FoundDraft {
      const found = find(token, conversation);
      if (found.ok) remove.run({ key: keyOf(token) });
      return found;
    },
  };
}

function sameConversation(a: ConversationKey, b: ConversationKey): boolean {
  return a.channel === b.channel && a.chat === b.chat && (a.thread ?? "") === (b.thread ?? "");
}

function randomToken(): string {
  const bytes = crypto.getRandomValues(new Uint8Array(8));
  return Array.from(bytes, (b) => ALPHABET[b % ALPHABET.length]).join("");
}
