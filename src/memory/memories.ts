import type { SqlDatabase } from "../runtime/sqlite.ts";
import { ftsQuery } from "./fts-query.ts";
import { createHistorySearch } from "./history-search.ts";
import type {
  Category,
  Fact,
  MemoryHit,
  MemoryStore,
  RecallHit,
  RecallInput,
  RecallResult,
  SourceCount,
  StoreInput,
  StoreOutcome,
} from "./memories-contract.ts";
import type { ConversationKey } from "./messages-contract.ts";
import { isScope } from "./scopes.ts";

/** Four categories about the user (USER.md) and two about the work (MEMORY.md). */
export const CATEGORIES = [
  "identity",
  "preference",
  "interest",
  "goal",
  "context",
  "directive",
] as const satisfies readonly Category[];

export const MAX_KEY_CHARS = 100;
export const MAX_VALUE_CHARS = 2000;
export const MAX_RECALL = 50;

type FactRow = {
  id: number;
  scope: string;
  category: Category;
  key: string;
  value: string;
  confidence: number;
  source: string;
  created_at: number;
  updated_at: number;
};

const COLUMNS = "m.id, m.scope, m.category, m.key, m.value, m.confidence, m.source, m.created_at, m.updated_at";
// One statement serves a list of scopes and "all": the list travels as JSON, so the SQL text never changes.
const IN_SCOPES = "($all = 1 OR m.scope IN (SELECT value FROM json_each($scopes)))";

/** Keys are compared as people mean them: "Favorite color" and "favorite_color" are one fact. */
export function normalizeKey(key: string): string {
  return key.trim().toLowerCase().replace(/\s+/g, "_");
}

/** Durable facts in memory.db, plus recall over them and over conversation history. */
export function createMemoryStore(db: SqlDatabase, now: () => number = Date.now): MemoryStore {
  const selectLive = db.query(`SELECT ${COLUMNS} FROM memories m WHERE scope = $scope AND key = $key
    AND superseded_by IS NULL`);
  const insert = db.query(
    `INSERT INTO memories (scope, category, key, value, confidence, source, created_at, updated_at)
     VALUES ($scope, $category, $key, $value, $confidence, $source, $now, $now) RETURNING id`,
  );
  const touch = db.query(
    "UPDATE memories SET confidence = $confidence, source = $source, updated_at = $now WHERE id = $id",
  );
  const supersede = db.query("UPDATE memories SET superseded_by = $by, updated_at = $now WHERE id = $id");
  const byKey = db.query(`SELECT ${COLUMNS}, 0 AS score FROM memories m
    WHERE m.key = $key AND m.superseded_by IS NULL AND ${IN_SCOPES} ORDER BY m.updated_at DESC LIMIT $limit`);
  const recent = db.query(`SELECT ${COLUMNS}, 0 AS score FROM memories m
    WHERE m.superseded_by IS NULL AND ${IN_SCOPES} ORDER BY m.updated_at DESC, m.id DESC LIMIT $limit`);
  const search = db.query(`SELECT ${COLUMNS}, bm25(memories_fts) AS score
    FROM memories_fts JOIN memories m ON m.id = memories_fts.rowid
    WHERE memories_fts MATCH $match AND m.superseded_by IS NULL AND ${IN_SCOPES}
    ORDER BY score LIMIT $limit`);
  const live = db.query(`SELECT ${COLUMNS} FROM memories m WHERE scope = $scope AND superseded_by IS NULL
    ORDER BY category, key`);
  const counts = db.query(`SELECT scope, category, COUNT(*) AS count FROM memories
    WHERE superseded_by IS NULL GROUP BY scope, category ORDER BY scope, category`);
  const mark = db.query(`INSERT INTO conversation_trust (channel, chat, thread, trust, last_seen_at)
    VALUES ($channel, $chat, $thread, $trust, $now)
    ON CONFLICT (channel, chat, thread, trust) DO UPDATE SET last_seen_at = excluded.last_seen_at`);
  const history = createHistorySearch(db);

  const scopeParams = (scopes: readonly string[] | "all") => ({
    all: scopes === "all" ? 1 : 0,
    scopes: JSON.stringify(scopes === "all" ? [] : scopes),
  });

  return {
    store(input: StoreInput): StoreOutcome {
      const key = normalizeKey(input.key);
      const value = input.value.trim();
      const confidence = input.confidence ?? 1;
      if (!isScope(input.scope)) return { ok: false, error: `"${input.scope}" is not a memory scope` };
      if (!CATEGORIES.includes(input.category)) {
        return { ok: false, error: `category must be one of ${CATEGORIES.join(", ")}` };
      }
      if (!key || key.length > MAX_KEY_CHARS) return { ok: false, error: `key must be 1-${MAX_KEY_CHARS} characters` };
      if (!value || value.length > MAX_VALUE_CHARS) {
        return { ok: false, error: `value must be 1-${MAX_VALUE_CHARS} characters` };
      }
      if (!(confidence >= 0 && confidence <= 1)) return { ok: false, error: "confidence must be between 0 and 1" };
      return db
        .transaction((): StoreOutcome => {
          const t = now();
          const old = selectLive.get({ scope: input.scope, key }) as FactRow | null;
          if (old && old.value === value && old.category === input.category) {
            touch.run({ id: old.id, confidence, source: input.source, now: t });
            return {
              ok: true,
              status: "unchanged",
              fact: toFact({ ...old, confidence, source: input.source, updated_at: t }),
            };
          }
          // The old row leaves the live set first, so the unique (scope, key) index admits its successor.
          if (old) supersede.run({ id: old.id, by: old.id, now: t });
          const row = { scope: input.scope, category: input.category, key, value, confidence, source: input.source };
          const { id } = insert.get({ ...row, now: t }) as { id: number };
          if (old) supersede.run({ id: old.id, by: id, now: t });
          const fact = toFact({ ...row, id, created_at: t, updated_at: t });
          return old
            ? { ok: true, status: "replaced", fact, previous: toFact(old) }
            : { ok: true, status: "created", fact };
        })
        .immediate();
    },

    retire(scope: string, key: string): boolean {
      const old = selectLive.get({ scope, key: normalizeKey(key) }) as FactRow | null;
      if (!old) return false;
      supersede.run({ id: old.id, by: old.id, now: now() });
      return true;
    },

    recall(input: RecallInput): RecallResult {
      const limit = Math.max(1, Math.min(MAX_RECALL, Math.floor(input.limit) || 1));
      const readMemories = input.source !== "history";
      const readHistory = input.source !== "memories" && input.historyConversations !== undefined;
      const scoped = { ...scopeParams(input.scopes), limit };
      const noScopes = input.scopes !== "all" && input.scopes.length === 0;

      if (input.key !== undefined) {
        if (input.source === "history")
          return { ok: false, error: "a key lookup reads memories; use query for history" };
        const key = normalizeKey(input.key);
        if (!key) return { ok: false, error: "the key is empty" };
        const rows = noScopes ? [] : (byKey.all({ ...scoped, key }) as (FactRow & { score: number })[]);
        return { ok: true, mode: "key", hits: rows.map(memoryHit) };
      }

      if (input.query === undefined || !input.query.trim()) {
        if (input.source === "history") return { ok: false, error: "searching history needs a query" };
        const rows = noScopes ? [] : (recent.all(scoped) as (FactRow & { score: number })[]);
        return { ok: true, mode: "recent", hits: rows.map(memoryHit) };
      }

      const q = ftsQuery(input.query);
      if (!q.ok) return { ok: false, error: q.error };
      try {
        const facts =
          readMemories && !noScopes
            ? (search.all({ ...scoped, match: q.match }) as (FactRow & { score: number })[]).map(memoryHit)
            : [];
        const said = readHistory ? history.search(q.match, input.historyConversations!, limit) : [];
        return { ok: true, mode: "search", hits: interleave(facts, said).slice(0, limit), terms: q.terms };
      } catch (err) {
        // The query is quoted term by term, so this is not expected; still, a search never throws at the model.
        return { ok: false, error: `the search failed: ${err instanceof Error ? err.message : String(err)}` };
      }
    },

    sources(): { memories: SourceCount[]; history: { conversations: number; messages: number } } {
      return { memories: counts.all() as SourceCount[], history: history.size() };
    },

    liveFacts(scope: string): Fact[] {
      return (live.all({ scope }) as FactRow[]).map(toFact);
    },

    noteConversation(key: ConversationKey, trust: "operator" | "guest"): void {
      mark.run({ channel: key.channel, chat: key.chat, thread: key.thread ?? "", trust, now: now() });
    },
  };
}

function toFact(r: FactRow): Fact {
  return {
    id: r.id,
    scope: r.scope,
    category: r.category,
    key: r.key,
    value: r.value,
    confidence: r.confidence,
    source: r.source,
    createdAt: r.created_at,
    updatedAt: r.updated_at,
  };
}

/**
 * bm25 scores from two indexes are not comparable (their corpus statistics differ by orders of magnitude),
 * so each list keeps its own ranking and they alternate, a fact first: neither crowds the other out.
 */
function interleave(facts: RecallHit[], said: RecallHit[]): RecallHit[] {
  const out: RecallHit[] = [];
  for (let i = 0; i < Math.max(facts.length, said.length); i++) {
    if (i < facts.length) out.push(facts[i]!);
    if (i < said.length) out.push(said[i]!);
  }
  return out;
}

function memoryHit(r: FactRow & { score: number }): MemoryHit {
  const { createdAt: _, ...fact } = toFact(r);
  return { from: "memory", ...fact, score: r.score };
}
