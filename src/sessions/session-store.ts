import { ftsQuery } from "../memory/fts-query.ts";
import { createHistorySearch } from "../memory/history-search.ts";
import type { ConversationKey } from "../memory/messages-contract.ts";
import { conversationScope } from "../memory/scopes.ts";
import type { Message } from "../providers/types.ts";
import type { SqlDatabase } from "../runtime/sqlite.ts";

/**
 * A session is one stored conversation: every message of one (channel, chat, thread) in memory.db. What
 * `fermix sessions` lists, shows, exports, searches and removes; the owner sees every conversation.
 */
export type SessionSummary = {
  id: string;
  /** The first prompt, on one line and shortened. */
  title: string;
  channel: string;
  chat: string;
  thread?: string;
  /** Stored messages, tool results included. */
  messages: number;
  created_at: string;
  updated_at: string;
};

export type SessionMessage = {
  role: "user" | "assistant" | "tool";
  text: string;
  created_at: string;
  tool_calls?: Array<{ id: string; name: string; arguments: Record<string, unknown> }>;
  tool_call_id?: string;
  tool_name?: string;
  is_error?: boolean;
  model?: string;
};

export type SessionHit = SessionSummary & { snippet: string };

export type SessionStore = ReturnType<typeof createSessionStore>;

const TITLE_CHARS = 60;
/** Search ranks this many matching messages, then keeps each session's best one. */
const SEARCH_HITS = 500;

/**
 * The id `fermix sessions` shows and takes. A `fermix ask` session is its own id (what `ask -s` continues); any
 * other conversation is `channel:chat[:thread]`, and a cli id with a ':' in it is written `cli:ID` so it is never
 * read as another channel's.
 */
export function sessionId(key: ConversationKey): string {
  if (key.channel === "cli" && !key.thread && !key.chat.includes(":")) return key.chat;
  return [key.channel, key.chat, ...(key.thread ? [key.thread] : [])].join(":");
}

type GroupRow = { channel: string; chat: string; thread: string; messages: number; first_at: number; last_at: number };
type MessageRow = { role: SessionMessage["role"]; content: string; created_at: number; model: string | null };

const GROUP = `SELECT channel, chat, thread, COUNT(*) AS messages, MIN(created_at) AS first_at,
  MAX(created_at) AS last_at, MAX(id) AS last FROM messages`;

export function createSessionStore(db: SqlDatabase) {
  const all = db.query(`${GROUP} GROUP BY channel, chat, thread ORDER BY last DESC LIMIT $limit`);
  const ofChannel = db.query(
    `${GROUP} WHERE channel = $channel GROUP BY channel, chat, thread ORDER BY last DESC LIMIT $limit`,
  );
  const one = db.query(`${GROUP} WHERE channel = $channel AND chat = $chat AND thread = $thread`);
  // A channel's conversations whose `chat[:thread]` is the rest of an id; one index range, whatever is in the ids.
  const named = db.query(
    `SELECT chat, thread FROM messages WHERE channel = $channel
     AND chat || CASE WHEN thread = '' THEN '' ELSE ':' || thread END = $rest GROUP BY chat, thread`,
  );
  const firstPrompt = db.query(
    `SELECT text FROM messages WHERE channel = $channel AND chat = $chat AND thread = $thread AND role = 'user'
     ORDER BY id LIMIT 1`,
  );
  const rows = db.query(
    "SELECT role, content, created_at, model FROM messages WHERE channel = $channel AND chat = $chat AND thread = $thread ORDER BY id",
  );
  const where = (key: ConversationKey) => ({ channel: key.channel, chat: key.chat, thread: key.thread ?? "" });

  const summary = (row: GroupRow): SessionSummary => {
    const key = { channel: row.channel, chat: row.chat, ...(row.thread ? { thread: row.thread } : {}) };
    const prompt = firstPrompt.get(where(key)) as { text: string } | null;
    return {
      id: sessionId(key),
      title: shorten(prompt?.text ?? "") || "(no prompt)",
      channel: row.channel,
      chat: row.chat,
      ...(row.thread ? { thread: row.thread } : {}),
      messages: row.messages,
      created_at: iso(row.first_at),
      updated_at: iso(row.last_at),
    };
  };

  const find = (key: ConversationKey): SessionSummary | undefined => {
    const row = one.get(where(key)) as GroupRow | null;
    return row?.messages ? summary(row) : undefined;
  };

  return {
    /** The sessions, most recently active first. */
    list(opts: { channel?: string; limit: number }): SessionSummary[] {
      const found = (
        opts.channel ? ofChannel.all({ channel: opts.channel, limit: opts.limit }) : all.all({ limit: opts.limit })
      ) as GroupRow[];
      return found.map(summary);
    },

    /** The conversations an id names: none, one, or (for a cli id that reads as another channel's) two. */
    resolve(id: string): SessionSummary[] {
      const keys: ConversationKey[] = [];
      const colon = id.indexOf(":");
      if (colon > 0) {
        const channel = id.slice(0, colon);
        for (const r of named.all({ channel, rest: id.slice(colon + 1) }) as Array<{ chat: string; thread: string }>)
          keys.push({ channel, chat: r.chat, ...(r.thread ? { thread: r.thread } : {}) });
      }
      // `ask -s a:b` is shown as cli:a:b, but the id it was given finds it too.
      if (!keys.some((k) => k.channel === "cli" && k.chat === id && !k.thread)) keys.push({ channel: "cli", chat: id });
      return keys.flatMap((k) => find(k) ?? []);
    },

    messages(session: SessionSummary): SessionMessage[] {
      return (rows.all(where(session)) as MessageRow[]).map(toSessionMessage);
    },

    /** Sessions whose messages match `words` (recall's FTS index and ranking), best first, with the best snippet. */
    search(words: string, opts: { channel?: string; limit: number }): SessionHit[] | { error: string } {
      const query = ftsQuery(words);
      if (!query.ok) return { error: query.error };
      const hits = createHistorySearch(db).search(query.match, "all", SEARCH_HITS);
      const seen = new Map<string, SessionHit>();
      for (const hit of hits) {
        if (opts.channel && hit.conversation.channel !== opts.channel) continue;
        const id = sessionId(hit.conversation);
        if (seen.has(id)) continue;
        const session = find(hit.conversation);
        if (session) seen.set(id, { ...session, snippet: oneLine(hit.snippet) });
        if (seen.size >= opts.limit) break;
      }
      return [...seen.values()];
    },

    /**
     * Deletes the conversation and everything kept under its key, in one transaction: its messages (the FTS rows
     * go with them, by trigger), compaction summaries, which trust levels spoke in it, its directory approvals, the
     * facts scoped to it, and the chat messages already answered in it. A message still waiting for its answer
     * stays: the channel is answering it, and that answer starts the conversation again.
     */
    remove(session: SessionSummary): number {
      const key = where(session);
      const tables = new Set(
        (db.query("SELECT name FROM sqlite_master WHERE type = 'table'").all() as Array<{ name: string }>).map(
          (t) => t.name,
        ),
      );
      const byKey = "channel = $channel AND chat = $chat AND thread = $thread";
      return db
        .transaction(() => {
          const removed = db.query(`DELETE FROM messages WHERE ${byKey}`).run(key).changes;
          for (const table of ["summaries", "conversation_trust", "approvals"]) {
            if (tables.has(table)) db.query(`DELETE FROM ${table} WHERE ${byKey}`).run(key);
          }
          if (tables.has("memories"))
            db.query("DELETE FROM memories WHERE scope = $scope").run({ scope: conversationScope(session) });
          if (tables.has("inbound_messages"))
            db.query(`DELETE FROM inbound_messages WHERE ${byKey} AND state <> 'pending'`).run(key);
          return removed;
        })
        .immediate();
    },
  };
}

function toSessionMessage(row: MessageRow): SessionMessage {
  const m = JSON.parse(row.content) as Message;
  const base = { created_at: iso(row.created_at) };
  if (m.role === "tool") {
    return {
      role: "tool",
      text: m.content,
      ...base,
      tool_call_id: m.toolCallId,
      tool_name: m.toolName,
      ...(m.isError ? { is_error: true } : {}),
    };
  }
  const text = m.content.flatMap((p) => (p.type === "text" ? [p.text] : [])).join("\n");
  if (m.role === "user") return { role: "user", text, ...base };
  const calls = m.content.flatMap((p) =>
    p.type === "tool_call" ? [{ id: p.id, name: p.name, arguments: p.arguments }] : [],
  );
  return {
    role: "assistant",
    text,
    ...base,
    ...(calls.length ? { tool_calls: calls } : {}),
    ...(row.model ? { model: row.model } : {}),
  };
}

function oneLine(text: string): string {
  return text.replace(/\s+/g, " ").trim();
}

function shorten(text: string): string {
  const line = oneLine(text);
  return line.length > TITLE_CHARS ? `${line.slice(0, TITLE_CHARS - 1).trimEnd()}…` : line;
}

function iso(ms: number): string {
  return new Date(ms).toISOString();
}
