import type { App } from "../app-contract.ts";
import type { Config } from "../config/schema.ts";
import type { OutboundMcp } from "../mcp/outbound/outbound-runtime-contract.ts";
import type { Subsystem } from "../subsystem.ts";
import { pluginsConfigured } from "./dev-local.ts";
import type { PluginRuntime } from "./plugin-runtime-contract.ts";

/** `app.plugins`: the plugin rail and the owner's [mcp.servers] as the CLI verbs and the daemon's routes see them. */
export function pluginsFacade(
  parts: { plugins: Subsystem<PluginRuntime>; mcpServers: Subsystem<OutboundMcp> },
  liveConfig: () => Config,
): App["plugins"] {
  // An idle daemon with no plugin enabled loads nothing for plugins, not even to say so.
  const active = () => parts.plugins.loaded() || pluginsConfigured(liveConfig());
  return {
    report: async () => {
      if (!active()) return { active: false, plugins: [], problems: [] };
      return { active: true, ...(await (await parts.plugins.api()).report(liveConfig())) };
    },
    reload: async (opts = {}) => {
      if (active()) await (await parts.plugins.api()).reload(liveConfig(), opts);
    },
    enabled: () => pluginsConfigured(liveConfig()),
    settled: async () => {
      if (parts.plugins.loaded()) await (await parts.plugins.api()).settled();
      if (parts.mcpServers.loaded()) await (await parts.mcpServers.api()).settled();
    },
    // The owner's [mcp.servers] start beside the plugins' servers, on the same supervisor, in the background.
    startServers: async () => {
      void parts.mcpServers.start();
      await parts.plugins.start();
    },
  };
}
