import type { Config } from "../config/schema.ts";
import type { Log } from "../observability/log.ts";
import { liveStatus } from "./live-status.ts";
import type { McpSupervisor } from "./mcp-rail/supervisor.ts";
import type { ToolCache } from "./mcp-rail/tool-cache.ts";
import type { TokenStore } from "./oauth/token-store.ts";
import { summaryOf } from "./plugin-host.ts";
import type { PluginHost } from "./plugin-host-contract.ts";
import type { PluginRuntime } from "./plugin-runtime-contract.ts";
import { createPluginServers } from "./plugin-servers.ts";
import { createStateCache, mcpStates } from "./plugin-states.ts";
import { createViewBuilder } from "./plugin-view.ts";
import { unavailablePluginTool } from "./prompt-section.ts";

export type PluginRuntimeDeps = {
  host: PluginHost;
  tokens: TokenStore;
  mcp: McpSupervisor;
  toolCache: ToolCache;
  env: Record<string, string | undefined>;
  log: Log;
  resolveSecret(ref: NonNullable<NonNullable<Config["fermix_core"]>["plugin_secrets"]>[string], slot: string): string;
  /**
   * "eager" (the daemon): an MCP plugin's server starts in the background as soon as the plugin is ready.
   * "lazy" (a one-shot ask): it starts only when the model calls one of its tools.
   */
  serverStart: "eager" | "lazy";
  /** How long a tool call waits for a server that is still starting before it answers "starting". */
  callWaitMs: number;
  /**
   * A cheap signature (file times) of what plugin states are computed from besides config.toml: the store,
   * auth.json, secrets, dev_local folders. A change means the states are computed again.
   */
  inputsSignature: (config: Config) => string;
};

/**
 * What turns get from the plugins: the states (plugin-states.ts), computed when something changes and reused by
 * every turn in between; the MCP-rail servers (plugin-servers.ts), supervised beside the turns; and the view a
 * turn reads (plugin-view.ts), its MCP part as each server stands.
 */
export function createPluginRuntime(deps: PluginRuntimeDeps): PluginRuntime {
  const eager = deps.serverStart === "eager";
  const servers = createPluginServers({ ...deps, config: () => states.latest()?.config ?? {} });
  const states = createStateCache({ ...deps, sync: eager ? servers.sync : undefined });
  const view = createViewBuilder({ ...deps, servers, serversRun: eager });

  return {
    async forTurn(config) {
      const from = await states.statesFor(config);
      // The same config read again from newer files (a signature change) replaces this one mid-turn; another config does not.
      const current = () => {
        const latest = states.latest();
        return view.build(latest?.config === from.config ? latest : from);
      };
      return {
        summaries: () => current().summaries,
        tools: () => current().tools,
        problems: from.problems,
        skills: from.states
          .filter((s) => s.enabled && s.manifest?.skills.length && s.dir)
          .map((s) => ({ plugin: s.name, dir: s.dir!, skills: s.manifest!.skills })),
      };
    },
    async report(config) {
      const all = await deps.host.states(config);
      const from = await states.statesFor(config);
      const mcpNames = new Set(mcpStates(from).map((s) => s.name));
      return {
        plugins: all.map((state) =>
          liveStatus(state, mcpNames.has(state.name) ? deps.mcp.get(state.name) : undefined, {
            serversRun: eager && mcpNames.has(state.name),
          }),
        ),
        problems: from.problems,
      };
    },
    async reload(config, opts = {}) {
      await states.recompute(config, { quarantined: true, devLocal: opts.devLocal === true });
      view.bump();
    },
    async catalogHint(tool, config) {
      try {
        return unavailablePluginTool(tool, (await deps.host.states(config)).map(summaryOf));
      } catch {
        return undefined;
      }
    },
    serverChanged: () => view.bump(),
    settled: async () => {
      await states.computing();
      await servers.synced();
      await Promise.all(deps.mcp.all().map((h) => h.ready()));
    },
    startServers: (config) => states.statesFor(config).then(() => undefined),
    stopAll: () => deps.mcp.stopAll(),
  };
}
