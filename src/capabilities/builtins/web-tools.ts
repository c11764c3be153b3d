import { BRAVE_KEY_SLOT } from "../../config/secret-slots.ts";
import { defineTool, type ToolContext } from "../tool.ts";
import { webFetchTool } from "./web-fetch.ts";
import { createWebSearchTool, webSearchSettings } from "./web-search.ts";

/** web_fetch needs nothing beyond the outbound door; the tool is registered as it is. */
export const webFetch = defineTool(webFetchTool);

/**
 * web_search reads its backend from [fermix_core.tools.web_search]; the Brave key comes from that
 * table's api_key (any secret form) or BRAVE_API_KEY, resolved only when a search runs.
 */
export function createWebSearch(endpoints?: Parameters<typeof createWebSearchTool>[0]) {
  const tool = createWebSearchTool(endpoints);
  return defineTool({
    ...tool,
    execute: (args, ctx: ToolContext) => {
      const section = ctx.config.fermix_core?.tools?.web_search;
      let apiKey: string | undefined;
      if (section?.backend === "brave") {
        try {
          apiKey = ctx.resolveSecret(section.api_key ?? `$${BRAVE_KEY_SLOT}`, BRAVE_KEY_SLOT);
        } catch {
          // A missing key is one of the hard errors web_search degrades from, loudly.
        }
      }
      return tool.execute(args, { ...ctx, config: webSearchSettings(ctx.config, apiKey) });
    },
  });
}

export const WEB_TOOLS = [webFetch, createWebSearch()];
