import type { Env } from "../config/env.ts";
import { webSearchKeySlot } from "../config/secret-slots.ts";
import { WEB_SEARCH_BACKENDS } from "../config/sections/tools.ts";
import type { ConfigWrites } from "./config-writes.ts";

export const SEARCH_BACKENDS = WEB_SEARCH_BACKENDS;
export type SearchBackend = (typeof SEARCH_BACKENDS)[number];
export type KeyedSearchBackend = Exclude<SearchBackend, "duckduckgo">;

/** How each backend is named on the page and in notices. */
export const SEARCH_LABELS: Record<SearchBackend, string> = {
  duckduckgo: "DuckDuckGo",
  brave: "Brave",
  exa: "Exa",
  tavily: "Tavily",
  firecrawl: "Firecrawl",
};

export type SearchView = {
  backend: SearchBackend;
  maxResults?: number;
  /** config.toml gives an api_key (its value never leaves the daemon); it is the configured backend's key. */
  keySet: boolean;
  /** The daemon's environment has the configured backend's variable (BRAVE_API_KEY, …), which web_search falls back to. */
  envKey: boolean;
  /** Which keyed backends' variables the daemon's environment has. */
  envKeys: Record<KeyedSearchBackend, boolean>;
};

export type SearchSave = { backend: SearchBackend; maxResults?: number; apiKey?: string };

/** The Search card: [fermix_core.tools.web_search]. */
export type SearchWeb = { view(): Promise<SearchView>; save(s: SearchSave): Promise<string> };

const TABLE = "fermix_core.tools.web_search";

export const isKeyed = (b: SearchBackend): b is KeyedSearchBackend => b !== "duckduckgo";

export function createSearchWeb(writes: ConfigWrites, env: Env): SearchWeb {
  const envKeys = () =>
    Object.fromEntries(SEARCH_BACKENDS.filter(isKeyed).map((b) => [b, Boolean(env[webSearchKeySlot(b)])])) as Record<
      KeyedSearchBackend,
      boolean
    >;
  return {
    async view() {
      const section = (await writes.config()).fermix_core?.tools?.web_search;
      const backend = section?.backend ?? "duckduckgo";
      const keys = envKeys();
      return {
        backend,
        ...(section?.max_results !== undefined ? { maxResults: section.max_results } : {}),
        keySet: section?.api_key !== undefined,
        envKey: isKeyed(backend) ? keys[backend] : false,
        envKeys: keys,
      };
    },
    async save(s) {
      const section = (await writes.config()).fermix_core?.tools?.web_search;
      const previous = section?.backend ?? "duckduckgo";
      // A key belongs to its vendor: moving to another keyed backend without a new key drops the old one's
      // api_key, so the new backend reads its own environment variable instead of being sent another's key.
      const dropKey = !s.apiKey && isKeyed(s.backend) && s.backend !== previous && section?.api_key !== undefined;
      const { changed, stored } = await writes.apply(
        TABLE,
        [
          { table: TABLE, key: "backend", value: s.backend },
          { table: TABLE, key: "max_results", value: s.maxResults },
          ...(dropKey ? [{ table: TABLE, key: "api_key", value: undefined }] : []),
        ],
        s.apiKey && isKeyed(s.backend)
          ? { table: TABLE, key: "api_key", slot: webSearchKeySlot(s.backend), value: s.apiKey }
          : undefined,
        (c) => {
          const w = c.fermix_core?.tools?.web_search;
          return w?.backend === s.backend && w.max_results === s.maxResults && (!dropKey || w.api_key === undefined);
        },
      );
      const key = stored
        ? `; the ${SEARCH_LABELS[s.backend]} key is stored in the ${stored === "keyring" ? "OS keyring" : "file store"}`
        : "";
      // web_search reads the section and resolves its key on every search.
      return changed || stored
        ? `web search: ${s.backend} saved${key}; applies from the next turn`
        : "web search: nothing changed";
    },
  };
}
