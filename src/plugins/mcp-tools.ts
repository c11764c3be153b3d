import * as v from "valibot";
import { type AnyTool, defineTool } from "../capabilities/tool.ts";
import type { McpCallResult } from "./mcp-rail/tool-result.ts";

/** A tool an MCP-rail plugin offers: discovered from its server, cached from an earlier run, or declared. */
export type KnownMcpTool = { name: string; description: string; inputSchema: object };

/** Arguments stay a plain object here: the server checks them against its own schema. */
const AnyArguments = v.record(v.string(), v.unknown());
/** Tool descriptions from servers run long; the provider list carries the first sentences only. */
const MAX_DESCRIPTION = 300;

/**
 * An MCP-rail plugin's tools as registry tools. `call` reaches the plugin's server — starting it first when a
 * one-shot ask offered these tools from the cache — so the tool objects never hold a server themselves.
 */
export function mcpPluginTools(
  known: readonly KnownMcpTool[],
  call: (name: string, args: Record<string, unknown>, signal: AbortSignal) => Promise<McpCallResult>,
): AnyTool[] {
  return known.map((tool) =>
    defineTool({
      name: tool.name,
      description: tool.description.slice(0, MAX_DESCRIPTION),
      parameters: AnyArguments,
      jsonSchema: tool.inputSchema as Record<string, unknown>,
      policy: "plugin",
      // MCP discovery says nothing reliable about side effects; treat every call as a write.
      readOnly: false,
      execute: (args, ctx) => call(tool.name, args, ctx.signal),
    }),
  );
}
