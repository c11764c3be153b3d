/**
 * Where each web_search backend lives, apart from its code: web_search's declaration, the keyed backends' table
 * and the test endpoints read these at start-up, while the backends themselves (their HTTP and HTML parsing) load
 * on the first search (issue 31: the daemon's boot RSS and the one-shot ask's import).
 */
/** DuckDuckGo's no-JavaScript results page: no key needed, which makes it the default backend. */
export const DUCKDUCKGO_URL = "https://html.duckduckgo.com/html/";
/** Brave Search's web endpoint; needs an API key sent as X-Subscription-Token. */
export const BRAVE_URL = "https://api.search.brave.com/res/v1/web/search";
/** Exa's search endpoint: a JSON POST, the key in x-api-key. */
export const EXA_URL = "https://api.exa.ai/search";
/** Tavily's search endpoint: a JSON POST, the key as a Bearer token. */
export const TAVILY_URL = "https://api.tavily.com/search";
/** Firecrawl's v2 search endpoint: a JSON POST, the key as a Bearer token. */
export const FIRECRAWL_URL = "https://api.firecrawl.dev/v2/search";
