import type { FermixPaths } from "../../config/paths.ts";
import type { Config } from "../../config/schema.ts";
import type { Log } from "../../observability/log.ts";
import { defineSubsystem } from "../../subsystem.ts";
import { pluginsConfigured } from "../dev-local.ts";
import type { McpSupervisor } from "./supervisor.ts";

export type McpSupervisorDeps = { paths: FermixPaths; config: Config; liveConfig: () => Config; log: Log };

/**
 * One MCP supervisor for plugin servers and the owner's [mcp.servers]: built when either needs it, stopped after
 * both (it is before them in the list), so every server it started is gone when the process ends.
 */
export const mcpSupervisorSubsystem = defineSubsystem({
  name: "mcp-supervisor",
  wanted: (deps: McpSupervisorDeps) =>
    pluginsConfigured(deps.liveConfig()) || Object.keys(deps.liveConfig().mcp?.servers ?? {}).length > 0,
  load: async (deps: McpSupervisorDeps): Promise<McpSupervisor> =>
    (await import("./shared-supervisor.ts")).buildMcpSupervisor({
      paths: deps.paths,
      config: deps.config,
      log: deps.log.withTag("plugins"),
    }),
  stop: (supervisor) => supervisor.stopAll(),
});
