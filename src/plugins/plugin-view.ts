import type { AnyTool } from "../capabilities/tool.ts";
import { liveStatus } from "./live-status.ts";
import type { McpServerHandle, McpSupervisor } from "./mcp-rail/supervisor.ts";
import type { ToolCache } from "./mcp-rail/tool-cache.ts";
import { type KnownMcpTool, mcpPluginTools } from "./mcp-tools.ts";
import { summaryOf } from "./plugin-host.ts";
import type { PluginState } from "./plugin-host-contract.ts";
import type { PluginServers } from "./plugin-servers.ts";
import { type Computed, mcpStates } from "./plugin-states.ts";
import type { PluginSummary } from "./prompt-section.ts";

export type ViewBuilderDeps = {
  mcp: McpSupervisor;
  toolCache: ToolCache;
  servers: Pick<PluginServers, "caller">;
  /** This process runs the servers of ready plugins (the daemon). */
  serversRun: boolean;
};

export type Built = { generation: number; from: Computed; summaries: PluginSummary[]; tools: AnyTool[] };

export type ViewBuilder = {
  /** The summaries and tools of `from` as its servers stand, rebuilt only after `bump`. */
  build(from: Computed): Built;
  /** A server's status or tool list changed. */
  bump(): void;
};

/** The summaries and tools a turn sees, the MCP part taken from each server as it stands now. */
export function createViewBuilder(deps: ViewBuilderDeps): ViewBuilder {
  // Bumped by every server status or tool-list change; the MCP part of the view is rebuilt when it moves.
  let generation = 0;
  let built: Built | undefined;

  /** The tools of one MCP plugin as things stand: its server's own list, else the cached or declared one. */
  const knownTools = (plugin: PluginState, handle: McpServerHandle | undefined): KnownMcpTool[] => {
    if (handle?.status === "ready") return handle.tools();
    if (handle?.status === "quarantined") return [];
    const cached = deps.toolCache.read({
      name: plugin.name,
      version: plugin.manifest?.version ?? "",
      dir: plugin.dir ?? "",
    });
    if (cached) return cached;
    return (plugin.manifest?.tools ?? [])
      .filter((t) => t.rail === "mcp")
      .map((t) => ({ name: t.name, description: t.description, inputSchema: t.parameters }));
  };

  return {
    build(from) {
      if (built && built.generation === generation && built.from === from) return built;
      const at = generation;
      const tools: AnyTool[] = [...from.http];
      const mcpNames = new Set(mcpStates(from).map((s) => s.name));
      const summaries: PluginSummary[] = from.states.map((state) => {
        if (!mcpNames.has(state.name)) return summaryOf(state);
        const handle = deps.mcp.get(state.name);
        const known = knownTools(state, handle);
        tools.push(...mcpPluginTools(known, deps.servers.caller(state)));
        const live = liveStatus(state, handle, { serversRun: deps.serversRun });
        return {
          name: state.name,
          enabled: true,
          status: live.status,
          detail: live.detail,
          fix: live.fix,
          tools: known.map((t) => t.name),
        };
      });
      built = { generation: at, from, summaries, tools };
      return built;
    },
    bump() {
      generation++;
    },
  };
}
