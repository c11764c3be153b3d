import type { McpSession } from "./connect.ts";
import { type McpPlugin, processSpec } from "./launch.ts";
import type { McpTool } from "./mcp-tool.ts";
import { toolNames } from "./tool-names.ts";

/** What one discovery attempt is told by the supervisor. */
export type ConnectHooks = {
  timeoutMs: number;
  /** The attempt's transport, as soon as there is something to tear down (a spawned server). */
  onSpawn: (transport: McpSession["transport"]) => void;
  onDiagnostic: (line: string) => void;
  onToolsChanged: () => void;
};

/**
 * Anything the supervisor can run: an mcp-rail plugin (pluginSource) or an owner's `[mcp.servers]` entry
 * (mcp/outbound). The supervision — background start, bounded retries, quarantine, reconnects, teardown — is
 * the same for all; only how to connect and how tools are named differ.
 */
export type McpSource = {
  /** The handle's key and log tag; unique within a supervisor. */
  name: string;
  /** fermix names for the server's tool list, in order: `[a-z0-9_]`, at most 64 bytes, unique. */
  toolNames(mcpNames: readonly string[]): string[];
  /** One discovery attempt; McpRuntimeMissing quarantines at once (no retry would help). */
  connect(hooks: ConnectHooks): Promise<McpSession>;
  /** The command that shows the owner why it is quarantined. */
  doctorCommand: string;
  /** A successful discovery's tools (besides the supervisor's own onDiscovered). */
  onDiscovered?: (tools: McpTool[]) => void;
};

/** An mcp-rail plugin as a source: its manifest's command in its folder, tools named `<plugin>_<tool>`. */
export function pluginSource(plugin: McpPlugin): McpSource {
  return {
    name: plugin.name,
    toolNames: (mcpNames) => toolNames(plugin.name, mcpNames),
    doctorCommand: `fermix plugins doctor ${plugin.name}`,
    async connect(hooks) {
      const spec = processSpec(plugin);
      // The MCP SDK is loaded with the first server that starts: a one-shot ask that calls no plugin tool never pays.
      const { connectOnce } = await import("./connect.ts");
      return connectOnce({
        plugin: plugin.name,
        spec,
        timeoutMs: hooks.timeoutMs,
        onSpawn: hooks.onSpawn,
        onDiagnostic: hooks.onDiagnostic,
        onToolsChanged: hooks.onToolsChanged,
      });
    },
  };
}
