import type { SqlDatabase } from "../runtime/sqlite.ts";
import type { ConversationKey } from "./messages-contract.ts";

/** Which conversations' history a search may read: a list, the ones the operator took part in, or all. */
export type HistoryFilter = readonly ConversationKey[] | "owner" | "all";

export type HistoryHit = {
  from: "history";
  messageId: number;
  conversation: ConversationKey;
  role: "user" | "assistant";
  /** The matching part of the message, not all of it: a message can be pages long. */
  snippet: string;
  createdAt: number;
  score: number;
};

/**
 * bm25 costs about a microsecond per matching message, so a word found in most of 100,000 messages would
 * cost ~100 ms to rank. Beyond this many matches only the newest are ranked, which bounds every search.
 */
export const RANK_WINDOW = 2000;
/** Up to this many conversations are narrowed inside the index; a longer list is filtered row by row. */
const MAX_INDEXED_CONVERSATIONS = 32;

type Row = {
  id: number;
  channel: string;
  chat: string;
  thread: string;
  role: "user" | "assistant";
  snippet: string;
  created_at: number;
  score: number;
};

// The conversation column only narrows: weight 0, so ranking is by the text alone.
const SELECT = `SELECT m.id, m.channel, m.chat, m.thread, m.role, m.created_at,
  snippet(messages_fts, 0, '', '', '…', 32) AS snippet, bm25(messages_fts, 1.0, 0.0) AS score
  FROM messages_fts CROSS JOIN messages m ON m.id = messages_fts.rowid
  WHERE messages_fts MATCH $match AND messages_fts.rowid >= $floor`;
// Tool results are left out: they are file dumps and command output, not what was said.
const SAID = "m.role IN ('user', 'assistant')";

/** The token migration 4 gives each message for its conversation: hex of channel, chat and thread. */
export function conversationToken(key: ConversationKey): string {
  const bytes = new TextEncoder().encode(`${key.channel}\x1f${key.chat}\x1f${key.thread ?? ""}`);
  return Array.from(bytes, (b) => b.toString(16).padStart(2, "0"))
    .join("")
    .toUpperCase();
}

/** FTS5 search over `messages_fts`, joined back to `messages` for where each hit was said. */
export function createHistorySearch(db: SqlDatabase) {
  const floor = db.query(
    `SELECT rowid FROM messages_fts WHERE messages_fts MATCH $match ORDER BY rowid DESC LIMIT 1 OFFSET ${RANK_WINDOW - 1}`,
  );
  const everywhere = db.query(`${SELECT} AND ${SAID} ORDER BY score LIMIT $limit`);
  const owners = db.query(`${SELECT} AND ${SAID} AND EXISTS (SELECT 1 FROM conversation_trust t
      WHERE t.channel = m.channel AND t.chat = m.chat AND t.thread = m.thread AND t.trust = 'operator')
    ORDER BY score LIMIT $limit`);
  const listed = db.query(`${SELECT} AND ${SAID} AND (m.channel, m.chat, m.thread) IN
      (SELECT json_extract(value, '$[0]'), json_extract(value, '$[1]'), json_extract(value, '$[2]')
       FROM json_each($conversations))
    ORDER BY score LIMIT $limit`);
  const size = db.query(
    "SELECT COUNT(*) AS messages, (SELECT COUNT(*) FROM (SELECT DISTINCT channel, chat, thread FROM messages)) AS conversations FROM messages",
  );

  /** Ranks what `match` finds, counting at most the newest RANK_WINDOW matches. */
  const ranked = (statement: typeof everywhere, match: string, params: Record<string, string | number>) => {
    // Finding the window's oldest row walks the index in rowid order, which costs little next to ranking.
    const bound = (floor.get({ match }) as { rowid: number } | null)?.rowid ?? 0;
    return statement.all({ ...params, match, floor: bound }) as Row[];
  };

  return {
    /** `text` is an FTS5 expression over words (see fts-query.ts); it is confined to the text column here. */
    search(text: string, filter: HistoryFilter, limit: number): HistoryHit[] {
      const words = `text : (${text})`;
      let rows: Row[];
      if (filter === "all") rows = ranked(everywhere, words, { limit });
      else if (filter === "owner") rows = ranked(owners, words, { limit });
      else if (filter.length === 0) rows = [];
      else if (filter.length <= MAX_INDEXED_CONVERSATIONS) {
        const tokens = filter.map((k) => `"${conversationToken(k)}"`).join(" OR ");
        rows = ranked(everywhere, `conversation_key : (${tokens}) AND ${words}`, { limit });
      } else {
        const conversations = JSON.stringify(filter.map((k) => [k.channel, k.chat, k.thread ?? ""]));
        rows = ranked(listed, words, { limit, conversations });
      }
      return rows.map((r) => ({
        from: "history",
        messageId: r.id,
        conversation: r.thread
          ? { channel: r.channel, chat: r.chat, thread: r.thread }
          : { channel: r.channel, chat: r.chat },
        role: r.role,
        snippet: r.snippet,
        createdAt: r.created_at,
        score: r.score,
      }));
    },

    size(): { conversations: number; messages: number } {
      return size.get() as { conversations: number; messages: number };
    },
  };
}
