import { webSearchKeySlot } from "../../config/secret-slots.ts";
import type { SearchRequest, SearchResult } from "./search-backend.ts";
import { BRAVE_URL, EXA_URL, FIRECRAWL_URL, TAVILY_URL } from "./search-urls.ts";

/** A web_search backend that needs an API key; DuckDuckGo, the keyless default and fallback, is not one. */
export type KeyedSearchBackend = {
  label: string;
  url: string;
  /** The keyring slot and environment variable its key is read from when config.toml names none. */
  keySlot: string;
  search(request: SearchRequest, apiKey: string | undefined, endpoint: string): Promise<SearchResult[]>;
};

/**
 * One line per keyed backend; each throws SearchFailed on a hard error and returns [] for no results. A backend's
 * code loads on its first search, not with this table: web_tools reads the table at start-up, and a search
 * backend is rarely used (issue 31: the daemon's boot RSS and the one-shot ask's import).
 */
export const KEYED_SEARCH_BACKENDS = {
  brave: {
    label: "Brave",
    url: BRAVE_URL,
    keySlot: webSearchKeySlot("brave"),
    search: async (...args) => (await import("./brave.ts")).searchBrave(...args),
  },
  exa: {
    label: "Exa",
    url: EXA_URL,
    keySlot: webSearchKeySlot("exa"),
    search: async (...args) => (await import("./exa.ts")).searchExa(...args),
  },
  tavily: {
    label: "Tavily",
    url: TAVILY_URL,
    keySlot: webSearchKeySlot("tavily"),
    search: async (...args) => (await import("./tavily.ts")).searchTavily(...args),
  },
  firecrawl: {
    label: "Firecrawl",
    url: FIRECRAWL_URL,
    keySlot: webSearchKeySlot("firecrawl"),
    search: async (...args) => (await import("./firecrawl.ts")).searchFirecrawl(...args),
  },
} as const satisfies Record<string, KeyedSearchBackend>;

export type KeyedBackendName = keyof typeof KEYED_SEARCH_BACKENDS;

export function isKeyedBackend(name: string | undefined): name is KeyedBackendName {
  return name !== undefined && Object.hasOwn(KEYED_SEARCH_BACKENDS, name);
}
