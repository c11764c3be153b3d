/** One tool an MCP server offers, as fermix names it; shared by the supervisor, its sources and the tool cache. */
export type McpTool = {
  /** `<plugin>_<sanitised MCP name>`, `[a-z0-9_]`, at most 64 bytes, unique within the plugin. */
  name: string;
  /** The name the server knows the tool by. */
  mcpName: string;
  description: string;
  inputSchema: object;
};
