import { processEnv } from "../../config/env.ts";
import { prerendered } from "../prerendered-specs.ts";
import { defineTool, type ToolContext } from "../tool.ts";
import { isKeyedBackend, KEYED_SEARCH_BACKENDS } from "./search-backends.ts";
import { testSearchEndpoints, withTestOrigins } from "./search-test-endpoints.ts";
import { webFetchTool } from "./web-fetch.ts";
import { createWebSearchTool, webSearchSettings } from "./web-search.ts";

/** web_fetch needs nothing beyond the outbound door; the tool is registered as it is. */
export const webFetch = defineTool(webFetchTool);

/**
 * web_search reads its backend from [fermix_core.tools.web_search]; a keyed backend's key comes from that
 * table's api_key (any secret form; "@keyring" is the backend's own slot) or its env var (BRAVE_API_KEY,
 * EXA_API_KEY, TAVILY_API_KEY, FIRECRAWL_API_KEY), resolved only when a search runs.
 */
export function createWebSearch(
  endpoints?: Parameters<typeof createWebSearchTool>[0],
  testOrigins: Set<string> = new Set(),
) {
  const tool = createWebSearchTool(endpoints);
  return defineTool({
    ...tool,
    execute: (args, ctx: ToolContext) => {
      const section = ctx.config.fermix_core?.tools?.web_search;
      let apiKey: string | undefined;
      if (isKeyedBackend(section?.backend)) {
        const slot = KEYED_SEARCH_BACKENDS[section.backend].keySlot;
        try {
          apiKey = ctx.resolveSecret(section.api_key ?? `$${slot}`, slot);
        } catch {
          // A missing key is one of the hard errors web_search degrades from, loudly.
        }
      }
      const net = withTestOrigins(ctx.net, testOrigins);
      return tool.execute(args, { ...ctx, net, config: webSearchSettings(ctx.config, apiKey) });
    },
  });
}

const testSearch = testSearchEndpoints(processEnv());
// Their wire schemas are pre-rendered (build.ts); a web_search made elsewhere (a test's) is converted.
export const WEB_TOOLS = prerendered([webFetch, createWebSearch(testSearch.endpoints, testSearch.origins)]);
