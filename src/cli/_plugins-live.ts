import { liveStatus } from "../plugins/live-status.ts";
import type { PluginsReport } from "../protocol/schemas.ts";
import type { PluginContext } from "./_plugins.ts";
import { ifDaemonRuns } from "./daemon-client.ts";

/** What `plugins list|doctor` show: the daemon's live states when it runs, else what this process computes. */
export type PluginsView = Omit<PluginsReport, "active"> & {
  /** True when the states came from the running daemon. */
  daemon: boolean;
};

/**
 * Asks the running daemon for every plugin's live state; without one (or when the daemon has no plugin
 * enabled, so there is nothing live to add) computes the readiness ladder here. Offline, a ready MCP plugin
 * just says `ready`: nothing runs its server until the daemon does, or a one-shot ask calls its tool.
 */
export async function pluginsView(ctx: PluginContext): Promise<PluginsView> {
  const report = await ifDaemonRuns((client) => client.plugins());
  if (report?.active) return { daemon: true, plugins: report.plugins, problems: report.problems };
  await ctx.host.ensureBundled(ctx.config);
  const states = await ctx.host.states(ctx.config);
  return {
    daemon: false,
    plugins: states.map((s) => liveStatus(s, undefined, { serversRun: false })),
    problems: await ctx.host.problems(ctx.config),
  };
}

/** Tells a running daemon that plugin settings changed; quiet when none runs. Returns whether one did. */
export async function tellDaemonToReload(opts: { devLocal?: boolean } = {}): Promise<boolean> {
  return (await ifDaemonRuns((client) => client.reloadPlugins(opts))) !== undefined;
}
