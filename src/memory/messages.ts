import type { Message } from "../providers/types.ts";
import type { SqlDatabase } from "../runtime/sqlite.ts";
import { inboundSettler } from "./inbound.ts";
import type { ConversationKey, ConversationWindow, MessageStore, StoredMeta } from "./messages-contract.ts";

type StoredRow = { id: number; turn_id: string; content: string };

/** Conversation history in memory.db. A message with no content is never stored or replayed. */
export function createMessageStore(db: SqlDatabase, now: () => number = Date.now): MessageStore {
  const insert = db.query(
    `INSERT INTO messages (channel, chat, thread, turn_id, role, content, text, provider, model, created_at)
     VALUES ($channel, $chat, $thread, $turn_id, $role, $content, $text, $provider, $model, $created_at)`,
  );
  const select = db.query(
    `SELECT id, turn_id, content FROM messages
     WHERE channel = $channel AND chat = $chat AND thread = $thread AND id > $after ORDER BY id`,
  );
  const latestSummary = db.query(
    `SELECT covers_up_to, text FROM summaries
     WHERE channel = $channel AND chat = $chat AND thread = $thread ORDER BY id DESC LIMIT 1`,
  );
  const insertSummary = db.query(
    `INSERT INTO summaries (channel, chat, thread, covers_up_to, text, created_at)
     VALUES ($channel, $chat, $thread, $covers_up_to, $text, $created_at)`,
  );
  const newest = db.query(
    "SELECT MAX(id) AS id FROM messages WHERE channel = $channel AND chat = $chat AND thread = $thread",
  );
  const settle = inboundSettler(db, now);
  const where = (key: ConversationKey) => ({ channel: key.channel, chat: key.chat, thread: key.thread ?? "" });

  return {
    commitTurn(key: ConversationKey, messages: Message[], meta: StoredMeta): number {
      const kept = messages.filter(hasContent);
      db.transaction(() => {
        meta.alongside?.();
        for (const m of kept) {
          insert.run({
            channel: key.channel,
            chat: key.chat,
            thread: key.thread ?? "",
            turn_id: meta.turnId,
            role: m.role,
            content: JSON.stringify(m),
            text: plainText(m),
            provider: meta.provider ?? null,
            model: meta.model ?? null,
            created_at: now(),
          });
        }
        for (const id of meta.answers?.ids ?? []) settle(id, meta.answers!.as);
      }).immediate();
      return kept.length;
    },

    window(key: ConversationKey): ConversationWindow {
      const summary = latestSummary.get(where(key)) as { covers_up_to: number; text: string } | null;
      const rows = select.all({ ...where(key), after: summary?.covers_up_to ?? 0 }) as StoredRow[];
      return {
        // An empty summary is a fresh start (/new): nothing stands in for what came before.
        summary: summary?.text || undefined,
        rows: rows
          .map((r) => ({ id: r.id, turnId: r.turn_id, message: JSON.parse(r.content) as Message }))
          .filter((r) => hasContent(r.message)),
      };
    },

    history(key: ConversationKey): Message[] {
      return this.window(key).rows.map((r) => r.message);
    },

    saveSummary(key: ConversationKey, coversUpTo: number, text: string): void {
      insertSummary.run({ ...where(key), covers_up_to: coversUpTo, text, created_at: now() });
    },

    startFresh(key: ConversationKey): number {
      const upTo = (newest.get(where(key)) as { id: number | null }).id;
      const current = this.window(key);
      if (upTo === null || (!current.rows.length && !current.summary)) return 0;
      this.saveSummary(key, upTo, "");
      return current.rows.length;
    },
  };
}

export function hasContent(m: Message): boolean {
  if (m.role === "tool") return true;
  return m.content.some((p) => (p.type === "text" ? p.text.trim().length > 0 : p.type === "tool_call"));
}

function plainText(m: Message): string {
  if (m.role === "tool") return m.content;
  return m.content.flatMap((p) => (p.type === "text" ? [p.text] : [])).join("\n");
}

/**
 * The chats of one channel, most recently active first: `fermix ask -s <TAB>` offers the recent cli sessions.
 * Reads only (the completion opens memory.db read-only), and is one index walk.
 */
export function recentChats(db: SqlDatabase, channel: string, limit: number): string[] {
  const rows = db
    .query(
      "SELECT chat, MAX(id) AS last FROM messages WHERE channel = $channel GROUP BY chat ORDER BY last DESC LIMIT $limit",
    )
    .all({ channel, limit }) as Array<{ chat: string }>;
  return rows.map((r) => r.chat);
}
