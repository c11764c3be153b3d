/**
 * Answers shaped like the real search backends', written for these tests: DuckDuckGo's no-JavaScript results
 * page (results wrapped in /l/?uddg= redirect links, an ad on top) and Brave's web search JSON.
 */

export type Hit = { title: string; url: string; snippet: string };

const wrap = (url: string) => `//duckduckgo.com/l/?uddg=${encodeURIComponent(url)}&amp;rut=0f3c9a1b2d`;

function ddgResult(hit: Hit): string {
  return `
<div class="result results_links results_links_deep web-result ">
  <div class="links_main links_deep result__body">
    <h2 class="result__title">
      <a rel="nofollow" class="result__a" href="${wrap(hit.url)}">${hit.title}</a>
    </h2>
    <div class="result__extras">
      <div class="result__extras__url">
        <span class="result__icon"><img class="result__icon__img" width="16" height="16" alt="" src="//external-content.duckduckgo.com/ip3/x.ico" name="i15" /></span>
        <a class="result__url" href="${wrap(hit.url)}">${new URL(hit.url).host}</a>
      </div>
    </div>
    <a class="result__snippet" href="${wrap(hit.url)}">${hit.snippet}</a>
    <div class="clear"></div>
  </div>
</div>`;
}

const AD = `
<div class="result results_links results_links_deep result--ad result--ad--small">
  <div class="links_main links_deep result__body">
    <h2 class="result__title">
      <a rel="nofollow" class="result__a" href="https://duckduckgo.com/y.js?ad_domain=ads.example&amp;ad_provider=bing&amp;u3=x">Buy <b>Things</b> Now</a>
    </h2>
    <a class="result__snippet" href="https://duckduckgo.com/y.js?ad_domain=ads.example">Sponsored result.</a>
  </div>
</div>`;

export function duckduckgoPage(query: string, hits: Hit[]): string {
  const body =
    hits.length === 0
      ? `<div class="no-results">No results found for <b>${query}</b>.</div>`
      : `${AD}${hits.map(ddgResult).join("\n")}`;
  return `<!DOCTYPE html PUBLIC "-//W3C//DTD HTML 4.01 Transitional//EN" "http://www.w3.org/TR/html4/loose.dtd">
<html>
<head>
  <meta http-equiv="content-type" content="text/html; charset=UTF-8">
  <meta name="referrer" content="origin">
  <title>${query} at DuckDuckGo</title>
  <link rel="stylesheet" href="/dist/h.css" type="text/css">
</head>
<body class="body--html">
  <a name="top" id="top"></a>
  <form action="/html/" method="post">
    <input type="text" name="q" value="${query}">
  </form>
  <div>
    <div class="serp__results">
      <div id="links" class="results">
${body}
      </div>
    </div>
  </div>
  <script type="text/javascript">var DDG = { result__a: "<a class='result__a' href='https://evil.example/'>x</a>" };</script>
</body>
</html>`;
}

export const CHALLENGE_PAGE = `<!DOCTYPE html><html><head><title>DuckDuckGo</title></head><body>
<div class="anomaly-modal__title">Unfortunately, bots use DuckDuckGo too.</div>
<form id="challenge-form" action="/anomaly.js" method="POST"></form></body></html>`;

export const DDG_HITS: Hit[] = [
  {
    title: "Bun — A fast all-in-one <b>JavaScript</b> runtime",
    url: "https://bun.sh/",
    snippet: "Bundle, install, and run <b>JavaScript</b> &amp; TypeScript — all in Bun.",
  },
  {
    title: "Bun (software) - Wikipedia",
    url: "https://en.wikipedia.org/wiki/Bun_(software)",
    snippet: "Bun is a JavaScript runtime, package manager and test runner&#x2026;",
  },
  {
    title: "oven-sh/bun: Incredibly fast <b>JavaScript</b> runtime",
    url: "https://github.com/oven-sh/bun?tab=readme-ov-file#install",
    snippet: "Bun is an all-in-one toolkit for JavaScript and TypeScript apps.",
  },
];

export function bravePage(query: string, hits: Hit[]) {
  return {
    type: "search",
    query: { original: query, show_strict_warning: false, is_navigational: false, spellcheck_off: true },
    mixed: { type: "mixed", main: hits.map((_, index) => ({ type: "web", index, all: false })), top: [], side: [] },
    web: {
      type: "search",
      family_friendly: true,
      results: hits.map((hit) => ({
        type: "search_result",
        subtype: "generic",
        title: hit.title,
        url: hit.url,
        is_source_local: false,
        is_source_both: false,
        description: hit.snippet,
        language: "en",
        family_friendly: true,
        meta_url: { scheme: "https", netloc: new URL(hit.url).host, hostname: new URL(hit.url).hostname },
      })),
    },
  };
}

export const BRAVE_HITS: Hit[] = [
  {
    title: "Bun — A fast all-in-one JavaScript runtime",
    url: "https://bun.sh/",
    snippet: "<strong>Bun</strong> is a fast JavaScript all-in-one toolkit &amp; runtime.",
  },
  { title: "Bun Docs", url: "https://bun.sh/docs", snippet: "Read the <strong>Bun</strong> documentation." },
];

export function braveError(status: number, code: string, detail: string) {
  return {
    type: "ErrorResponse",
    error: { id: "2f0b6f3e-2a61-4bb5-9d6c-1c4f1c9d6a11", status, code, detail, meta: { component: "authentication" } },
    time: 1767225600,
  };
}
