import { webSearchKeySlot } from "../../config/secret-slots.ts";
import { html } from "../html.ts";
import { definePage } from "../page.ts";
import { isKeyed, SEARCH_BACKENDS, SEARCH_LABELS } from "../search-deps.ts";
import { csrfField, formKey, pick, secretInput, select } from "./_fields.ts";
import { noticeOf, refusal } from "./_notice.ts";

const MAX_RESULTS = 20;

/**
 * web_search's backend ([fermix_core.tools.web_search]): DuckDuckGo needs nothing; Brave, Exa, Tavily and
 * Firecrawl each need their own API key.
 */
export const searchPage = definePage({
  path: "/setup/search",
  title: "Search",
  async render(deps, ctx) {
    const view = await deps.search.view();
    const slot = isKeyed(view.backend) ? webSearchKeySlot(view.backend) : undefined;
    const keyState = view.keySet ? "set" : view.envKey && slot ? `from ${slot} in the daemon's environment` : "not set";
    const inEnv = SEARCH_BACKENDS.filter(isKeyed)
      .filter((b) => view.envKeys[b])
      .map((b) => webSearchKeySlot(b));
    return html`${noticeOf(ctx)}<p>The backend of the web_search tool. DuckDuckGo needs no key; Brave, Exa, Tavily and
Firecrawl each need an API key of their own (when the chosen one fails — a refused key, no credits, an outage — a search
is retried once on DuckDuckGo and says so; no results is an answer, not a failure). Changes apply from the next turn.</p>
<form method="post" action="/setup/search">${csrfField(ctx.csrf)}
<p><label>Backend ${select(
      "backend",
      SEARCH_BACKENDS.map((b) => ({ value: b, label: SEARCH_LABELS[b] })),
      view.backend,
    )}</label></p>
<p><label>Results per search (1–${MAX_RESULTS}, empty for the default) <input name="max_results" inputmode="numeric" value="${view.maxResults ?? ""}"></label></p>
${secretInput("api_key", `API key of the chosen backend${isKeyed(view.backend) ? ` (now ${SEARCH_LABELS[view.backend]})` : ""}`, keyState)}
<p><small>Without a key here, each backend reads its own environment variable: BRAVE_API_KEY, EXA_API_KEY, TAVILY_API_KEY or FIRECRAWL_API_KEY${inEnv.length ? ` (the daemon has ${inEnv.join(", ")})` : ""}.</small></p>
<p><button>Save</button></p></form>`;
  },
  async submit(form, deps) {
    const backend = pick(form, "backend", SEARCH_BACKENDS);
    if (!backend.ok) return backend;
    const rawMax = (form.get("max_results") ?? "").trim();
    const maxResults = rawMax ? Number(rawMax) : undefined;
    if (maxResults !== undefined && !(Number.isInteger(maxResults) && maxResults >= 1 && maxResults <= MAX_RESULTS)) {
      return { ok: false, error: `max_results: "${rawMax}" is not a whole number from 1 to ${MAX_RESULTS}` };
    }
    const label = SEARCH_LABELS[backend.value];
    const key = formKey(form, "api_key", `${label} API key`);
    if (!key.ok) return { ok: false, error: key.error };
    try {
      if (isKeyed(backend.value) && !key.value) {
        const view = await deps.search.view();
        // The stored key counts only for the backend it was given for; another vendor needs its own.
        const kept = view.keySet && view.backend === backend.value;
        if (!kept && !view.envKeys[backend.value])
          return { ok: false, error: `${label} API key: ${label} needs an API key; paste one` };
      }
      return { ok: true, notice: await deps.search.save({ backend: backend.value, maxResults, apiKey: key.value }) };
    } catch (err) {
      return refusal(err, [key.raw, key.raw.trim()]);
    }
  },
});
