import type { Database } from "bun:sqlite";
import type { Message } from "../providers/types.ts";

export type ConversationKey = { channel: string; chat: string; thread?: string };

export type StoredMeta = { turnId: string; provider?: string; model?: string };

/** Conversation history in memory.db. A message with no content is never stored or replayed. */
export function createMessageStore(db: Database, now: () => number = Date.now) {
  const insert = db.query(
    `INSERT INTO messages (channel, chat, thread, turn_id, role, content, text, provider, model, created_at)
     VALUES ($channel, $chat, $thread, $turn_id, $role, $content, $text, $provider, $model, $created_at)`,
  );
  const select = db.query(
    `SELECT content FROM messages WHERE channel = $channel AND chat = $chat AND thread = $thread ORDER BY id`,
  );

  return {
    /** Commits one turn's messages atomically: all of them or, on any failure, none. */
    commitTurn(key: ConversationKey, messages: Message[], meta: StoredMeta): number {
      const kept = messages.filter(hasContent);
      db.transaction(() => {
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
      }).immediate();
      return kept.length;
    },

    history(key: ConversationKey): Message[] {
      const rows = select.all({ channel: key.channel, chat: key.chat, thread: key.thread ?? "" }) as {
        content: string;
      }[];
      return rows.map((r) => JSON.parse(r.content) as Message).filter(hasContent);
    },
  };
}

export type MessageStore = ReturnType<typeof createMessageStore>;

export function hasContent(m: Message): boolean {
  if (m.role === "tool") return true;
  return m.content.some((p) => (p.type === "text" ? p.text.trim().length > 0 : p.type === "tool_call"));
}

function plainText(m: Message): string {
  if (m.role === "tool") return m.content;
  return m.content.flatMap((p) => (p.type === "text" ? [p.text] : [])).join("\n");
}
