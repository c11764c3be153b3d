import { webSearchKeySlot } from "../../config/secret-slots.ts";
import { BRAVE_URL, searchBrave } from "./brave.ts";
import { EXA_URL, searchExa } from "./exa.ts";
import { FIRECRAWL_URL, searchFirecrawl } from "./firecrawl.ts";
import type { SearchRequest, SearchResult } from "./search-backend.ts";
import { searchTavily, TAVILY_URL } from "./tavily.ts";

/** A web_search backend that needs an API key; DuckDuckGo, the keyless default and fallback, is not one. */
export type KeyedSearchBackend = {
  label: string;
  url: string;
  /** The keyring slot and environment variable its key is read from when config.toml names none. */
  keySlot: string;
  search(request: SearchRequest, apiKey: string | undefined, endpoint: string): Promise<SearchResult[]>;
};

/** One line per keyed backend; each throws SearchFailed on a hard error and returns [] for no results. */
export const KEYED_SEARCH_BACKENDS = {
  brave: { label: "Brave", url: BRAVE_URL, keySlot: webSearchKeySlot("brave"), search: searchBrave },
  exa: { label: "Exa", url: EXA_URL, keySlot: webSearchKeySlot("exa"), search: searchExa },
  tavily: { label: "Tavily", url: TAVILY_URL, keySlot: webSearchKeySlot("tavily"), search: searchTavily },
  firecrawl: {
    label: "Firecrawl",
    url: FIRECRAWL_URL,
    keySlot: webSearchKeySlot("firecrawl"),
    search: searchFirecrawl,
  },
} as const satisfies Record<string, KeyedSearchBackend>;

export type KeyedBackendName = keyof typeof KEYED_SEARCH_BACKENDS;

export function isKeyedBackend(name: string | undefined): name is KeyedBackendName {
  return name !== undefined && Object.hasOwn(KEYED_SEARCH_BACKENDS, name);
}
