import type { Config } from "../config/schema.ts";
import type { McpPlugin } from "./mcp-rail/launch.ts";
import { type McpServerHandle, type McpSupervisor, SupervisorClosed } from "./mcp-rail/supervisor.ts";
import type { McpCallResult } from "./mcp-rail/tool-result.ts";
import type { PluginState } from "./plugin-host-contract.ts";
import { type Computed, mcpStates, type Restart } from "./plugin-states.ts";
import { pluginConfigValues } from "./settings/plugin-config.ts";

export type PluginServersDeps = {
  mcp: McpSupervisor;
  env: Record<string, string | undefined>;
  log: { error(msg: string): void };
  /** How long a tool call waits for a server that is still starting before it answers "starting". */
  callWaitMs: number;
  /** The config of the latest plugin states: what a server started by a tool call runs with. */
  config: () => Config;
};

export type PluginServers = {
  /** Brings the servers in line with `from`, after the syncs asked for before it. */
  sync(from: Computed, restart: Restart): void;
  /** The latest sync, settling when it has. */
  synced(): Promise<void>;
  /** A call of an MCP plugin's tool: its server started first if this process has not started it yet. */
  caller(
    plugin: PluginState,
  ): (name: string, args: Record<string, unknown>, signal: AbortSignal) => Promise<McpCallResult>;
};

/**
 * MCP-rail servers supervised for the plugins: started in the background (never in front of a turn), restarted
 * on a changed folder or setting, stopped when their plugin stops being ready.
 */
export function createPluginServers(deps: PluginServersDeps): PluginServers {
  /** plugin → the launch spec its server runs with, so a changed folder or setting restarts it. */
  const launched = new Map<string, string>();
  /** The latest start/stop of servers, running beside the turns. */
  let syncing: Promise<void> = Promise.resolve();

  const launchSpec = (plugin: PluginState, config: Config): McpPlugin => ({
    name: plugin.name,
    dir: plugin.dir!,
    manifest: plugin.manifest!,
    configValues: pluginConfigValues(config, plugin.name),
    env: deps.env,
  });
  const specKey = (spec: McpPlugin) => `${spec.dir}\n${spec.manifest.version}\n${JSON.stringify(spec.configValues)}`;

  const start = async (spec: McpPlugin): Promise<McpServerHandle> => {
    launched.set(spec.name, specKey(spec));
    return deps.mcp.start(spec);
  };

  const syncServers = async (from: Computed, restart: Restart) => {
    const wanted = new Map(mcpStates(from).map((s) => [s.name, launchSpec(s, from.config)]));
    const devLocal = new Set(from.states.filter((s) => s.source === "dev_local").map((s) => s.name));
    for (const name of [...launched.keys()]) {
      if (!wanted.has(name)) {
        launched.delete(name);
        await deps.mcp.stop(name);
      }
    }
    for (const [name, spec] of wanted) {
      // `launched` is set when a start is asked for, before the supervisor's queue runs it: no double starts.
      const stale = launched.get(name) !== specKey(spec);
      const quarantined = restart.quarantined && deps.mcp.get(name)?.status === "quarantined";
      if (stale || quarantined || (restart.devLocal && devLocal.has(name))) {
        try {
          await start(spec);
        } catch (err) {
          if (SupervisorClosed.is(err)) return; // shutting down: nothing more to start
          throw err;
        }
      }
    }
  };

  return {
    // Never in front of a turn: stopping a replaced server can take its grace period.
    // One sync at a time, in the order the states were computed, so an older sync never undoes a newer one.
    sync(from, restart) {
      syncing = syncing
        .then(() => syncServers(from, restart))
        .catch((err) => deps.log.error(`starting plugin servers failed: ${(err as Error).message}`));
    },
    synced: () => syncing,
    caller: (plugin) => async (name, args, signal) => {
      const spec = launchSpec(plugin, deps.config());
      let handle = deps.mcp.get(plugin.name);
      if (!handle || handle.status === "stopped") handle = await start(spec);
      return handle.call(name, args, signal, { waitMs: deps.callWaitMs });
    },
  };
}
