/**
 * Turns free text from the model into an FTS5 MATCH expression that cannot be a syntax error: every
 * term is a quoted string (FTS5 tokenizes inside the quotes), and the terms are OR-ed so bm25 ranks
 * rows that match more of them higher instead of dropping rows that miss one.
 */
export type FtsQuery = { ok: true; match: string; terms: string[] } | { ok: false; error: string };

/** More terms add little to ranking and make every search slower. */
export const MAX_TERMS = 12;

// Words that match nearly every message: searched alone they rank nothing and cost a scan of the index.
const STOPWORDS = new Set(
  (
    "a an and are as at be been but by can could did do does for from had has have he her his how i if in into is it " +
    "its me my no not of on or our she so than that the their them then there these they this to us was we were " +
    "what when where which who why will with would you your"
  ).split(" "),
);

// A word as FTS5's unicode61 tokenizer sees one (letters, digits), optionally with a trailing * for a prefix.
const WORD = /[\p{L}\p{N}]+(?:[_'’-][\p{L}\p{N}]+)*\*?/gu;

export function ftsQuery(text: string): FtsQuery {
  const seen = new Set<string>();
  const words: { term: string; prefix: boolean }[] = [];
  for (const raw of text.toLowerCase().match(WORD) ?? []) {
    const prefix = raw.endsWith("*");
    const term = prefix ? raw.slice(0, -1) : raw;
    const id = `${term}${prefix ? "*" : ""}`;
    if (seen.has(id)) continue;
    seen.add(id);
    words.push({ term, prefix });
  }
  if (!words.length) return { ok: false, error: "the query has no words to search for" };
  const meaningful = words.filter((w) => !STOPWORDS.has(w.term));
  const kept = (meaningful.length ? meaningful : words).slice(0, MAX_TERMS);
  // The term holds only letters, digits and joiners, so it never contains a double quote; FTS5 reads a
  // joined word ("favorite_color") as the phrase of its parts.
  const match = kept.map((w) => `"${w.term}"${w.prefix ? "*" : ""}`).join(" OR ");
  return { ok: true, match, terms: kept.map((w) => (w.prefix ? `${w.term}*` : w.term)) };
}
