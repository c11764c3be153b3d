/**
 * A small in-memory BM25 index for tool_search. The deferred catalog is a few dozen to a few thousand short
 * documents, so a plain inverted index beats any dependency: building 1,000 tools takes milliseconds and a
 * search touches only the postings of the query's terms.
 */

export type Bm25Doc = { id: string; text: string };
export type Bm25Hit = { id: string; score: number };

export type Bm25Index = {
  /** How many documents the index holds. */
  size: number;
  /**
   * The best `limit` documents for `query`, highest score first (ties keep document order). Documents that
   * share no term with the query are never returned. `accept` filters before the cut, so a caller that may
   * see only part of the catalog still gets `limit` hits from its own part.
   */
  search(query: string, limit: number, accept?: (id: string) => boolean): Bm25Hit[];
};

// The usual Okapi constants: k1 bounds how much repeating a term helps, b how much a long document is penalised.
const K1 = 1.2;
const B = 0.75;

/** Lower-cased runs of letters and digits (any script), with plurals folded so "channels" finds "channel". */
export function tokenize(text: string): string[] {
  const tokens: string[] = [];
  for (const raw of text.toLowerCase().split(/[^\p{L}\p{N}]+/u)) {
    if (raw) tokens.push(fold(raw));
  }
  return tokens;
}

/**
 * A deliberately tiny English plural fold, not a stemmer: tool names and queries disagree mostly on number
 * ("list_channels" vs "list the channel"). Both sides go through it, so an odd fold ("status" → "statu") is harmless.
 */
function fold(token: string): string {
  if (token.length <= 3 || !token.endsWith("s") || token.endsWith("ss")) return token;
  if (token.length > 4 && token.endsWith("ies")) return `${token.slice(0, -3)}y`;
  if (/(?:ch|sh|x|ss)es$/.test(token)) return token.slice(0, -2);
  return token.slice(0, -1);
}

export function createBm25Index(docs: readonly Bm25Doc[]): Bm25Index {
  const ids = docs.map((d) => d.id);
  const lengths = new Float64Array(docs.length);
  // term → parallel arrays of (document number, term frequency): compact, and cheap to walk.
  const postings = new Map<string, { docs: number[]; tfs: number[] }>();
  let total = 0;
  docs.forEach((doc, n) => {
    const counts = new Map<string, number>();
    const tokens = tokenize(doc.text);
    for (const t of tokens) counts.set(t, (counts.get(t) ?? 0) + 1);
    lengths[n] = tokens.length;
    total += tokens.length;
    for (const [term, tf] of counts) {
      let list = postings.get(term);
      if (!list) {
        list = { docs: [], tfs: [] };
        postings.set(term, list);
      }
      list.docs.push(n);
      list.tfs.push(tf);
    }
  });
  const count = docs.length;
  const avgLength = count ? total / count || 1 : 1;

  return {
    size: count,
    search(query, limit, accept) {
      if (limit <= 0 || count === 0) return [];
      const scores = new Float64Array(count);
      const touched: number[] = [];
      // A query word said twice is not twice as important; count each once.
      for (const term of new Set(tokenize(query))) {
        const list = postings.get(term);
        if (!list) continue;
        const df = list.docs.length;
        // The "+1" form of IDF never goes negative, so a word found in most tools still counts a little.
        const idf = Math.log(1 + (count - df + 0.5) / (df + 0.5));
        for (let i = 0; i < df; i++) {
          const n = list.docs[i]!;
          const tf = list.tfs[i]!;
          if (scores[n] === 0) touched.push(n);
          scores[n]! += (idf * tf * (K1 + 1)) / (tf + K1 * (1 - B + (B * lengths[n]!) / avgLength));
        }
      }
      const hits = accept ? touched.filter((n) => accept(ids[n]!)) : touched;
      hits.sort((a, b) => scores[b]! - scores[a]! || a - b);
      return hits.slice(0, limit).map((n) => ({ id: ids[n]!, score: scores[n]! }));
    },
  };
}
