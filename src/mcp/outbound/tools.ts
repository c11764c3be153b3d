import * as v from "valibot";
import { type AnyTool, defineTool } from "../../capabilities/tool.ts";
import type { McpCallResult } from "../../plugins/mcp-rail/tool-result.ts";
import { configuredClass, fermixClass, type OutboundServer } from "./server-config.ts";

/** A tool as the server last listed it: its fermix name, its MCP name, what it says and takes. */
export type KnownTool = { name: string; mcpName: string; description: string; inputSchema: object };

/** Arguments stay a plain object here: the server checks them against its own schema. */
const AnyArguments = v.record(v.string(), v.unknown());
/** Tool descriptions from servers run long; the catalog and the provider list carry the first 300 characters. */
const MAX_DESCRIPTION = 300;

/**
 * One configured server's tools as registry tools, each in its configured class (external_api unless the owner
 * said otherwise) and deferred behind tool_search. `call` reaches the server through the shared supervisor.
 */
export function outboundTools(
  server: OutboundServer,
  known: readonly KnownTool[],
  call: (name: string, args: Record<string, unknown>, signal: AbortSignal) => Promise<McpCallResult>,
): AnyTool[] {
  return known.map((tool) => {
    const configured = classFor(server, tool);
    const { policy, readOnly } = fermixClass(configured);
    return defineTool({
      name: tool.name,
      description:
        tool.description.slice(0, MAX_DESCRIPTION) || `${tool.mcpName} from the MCP server ${server.configName}`,
      parameters: AnyArguments,
      jsonSchema: tool.inputSchema as Record<string, unknown>,
      policy,
      readOnly,
      deferrable: true,
      help: `From the owner's MCP server [mcp.servers.${server.configName}], where it is named ${tool.mcpName}; policy class ${configured}.`,
      execute: async (args, ctx) => {
        const result = await call(tool.name, args, ctx.signal);
        if (!result.isError) return result;
        const reason = result.content.replace(`${tool.name} failed: `, "");
        return { ...result, content: `MCP tool '${server.configName}/${tool.mcpName}' failed: ${reason}` };
      },
    });
  });
}

/** The per-tool table may name the tool as the server does (`read_file`) or as fermix does (`mcp_fs_read_file`). */
export function classFor(server: OutboundServer, tool: Pick<KnownTool, "name" | "mcpName">) {
  const byFermixName = server.config.tools?.[tool.name]?.policy_class;
  return byFermixName ?? configuredClass(server.config, tool.mcpName);
}
