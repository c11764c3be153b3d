import { defineError } from "../../error.ts";
import type { GuardedFetch } from "../../net/types.ts";
import { VERSION } from "../../version.ts";

/** One search hit, as every backend reports it. */
export type SearchResult = { title: string; url: string; snippet: string };

export type SearchRequest = { net: GuardedFetch; query: string; count: number; signal: AbortSignal };

/** A backend that could not answer (as opposed to answering with no results). */
export const SearchFailed = defineError<{ backend: string; reason: string }>("search_failed");

export const SEARCH_USER_AGENT = `fermix/${VERSION}`;

// Snippets are for choosing what to fetch next, not for reading; long ones waste the model's context.
const MAX_SNIPPET = 320;

export function clipSnippet(text: string): string {
  return text.length > MAX_SNIPPET ? `${text.slice(0, MAX_SNIPPET - 1).trimEnd()}…` : text;
}
