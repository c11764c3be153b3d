import type { DirectoryApprovals } from "../capabilities/directory-approvals.ts";
import type { ConversationKey } from "../memory/messages-contract.ts";
import { sha256Hex } from "../runtime/hash.ts";
import type { SqlDatabase } from "../runtime/sqlite.ts";

export const APPROVAL_TTL_MS = 60_000;
// No 0/O or 1/I/L: the owner may have to type it.
const ALPHABET = "ABCDEFGHJKMNPQRSTUVWXYZ23456789";

/**
 * Directory grants waiting for the owner. Kept in memory.db rather than in memory so a one-shot CLI
 * (a new process for every ask) can confirm what the previous ask requested. Single use, bound to the
 * conversation that asked, expiring after 60 s.
 */
export function createApprovals(db: () => SqlDatabase, now: () => number = Date.now): DirectoryApprovals {
  return {
    request({ path, reason, conversation }) {
      const token = randomToken();
      const expiresAt = now() + APPROVAL_TTL_MS;
      db().run(
        "INSERT INTO approvals (token_hash, path, reason, channel, chat, thread, expires_at) VALUES (?, ?, ?, ?, ?, ?, ?)",
        [hash(token), path, reason, conversation.channel, conversation.chat, conversation.thread ?? "", expiresAt],
      );
      return { token, expiresAt };
    },

    confirm: (token, conversation) => settle(token, conversation),
    deny: (token, conversation) => settle(token, conversation),
  };

  /**
   * Confirm and deny both use the request up: checked before it is consumed (a token from another
   * conversation, or a stale one, burns nothing), then claimed in one UPDATE so two answers cannot both win.
   */
  function settle(
    token: string,
    conversation: ConversationKey,
  ): { ok: true; path: string } | { ok: false; reason: string } {
    const key = hash(token.trim().toUpperCase());
    const row = db()
      .query("SELECT path, channel, chat, thread, expires_at, used_at FROM approvals WHERE token_hash = ?")
      .get(key) as {
      path: string;
      channel: string;
      chat: string;
      thread: string;
      expires_at: number;
      used_at: number | null;
    } | null;
    if (!row) return { ok: false, reason: "no pending request has that token" };
    if (!sameConversation(row, conversation))
      return { ok: false, reason: "that token belongs to another conversation" };
    if (row.used_at !== null) return { ok: false, reason: "that token was already used" };
    if (row.expires_at < now()) return { ok: false, reason: "that token has expired; ask again" };
    const claimed = db().run("UPDATE approvals SET used_at = ? WHERE token_hash = ? AND used_at IS NULL", [now(), key]);
    if (claimed.changes !== 1) return { ok: false, reason: "that token was already used" };
    return { ok: true, path: row.path };
  }
}

function sameConversation(row: { channel: string; chat: string; thread: string }, c: ConversationKey): boolean {
  return row.channel === c.channel && row.chat === c.chat && row.thread === (c.thread ?? "");
}

function randomToken(): string {
  const bytes = crypto.getRandomValues(new Uint8Array(8));
  return Array.from(bytes, (b) => ALPHABET[b % ALPHABET.length]).join("");
}

function hash(token: string): string {
  return sha256Hex(token);
}
