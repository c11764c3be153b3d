import type { FermixPaths } from "../../config/paths.ts";
import type { Config } from "../../config/schema.ts";
import type { Log } from "../../observability/log.ts";
import { recordChildGroups } from "./child-groups.ts";
import { createMcpSupervisor, DISCOVERY_TIMEOUT_MS, type McpSupervisor } from "./supervisor.ts";
import { createToolCache } from "./tool-cache.ts";

/** `[fermix_core.plugins] discovery_timeout_seconds`, else the default: one discovery attempt's deadline. */
export function discoveryTimeoutOf(config: Config): number {
  const seconds = config.fermix_core?.plugins?.discovery_timeout_seconds;
  return seconds ? seconds * 1000 : DISCOVERY_TIMEOUT_MS;
}

/**
 * The one supervisor of a process's MCP servers: mcp-rail plugins and the owner's `[mcp.servers]` alike, so both
 * get the same background start, retries, quarantine, reconnects and process-group teardown. A plugin's
 * discovered tools are remembered for the next one-shot ask here; an `[mcp.servers]` entry remembers its own.
 */
export function buildMcpSupervisor(deps: { paths: FermixPaths; config: Config; log: Log }): McpSupervisor {
  const toolCache = createToolCache(deps.paths.plugins.toolCache);
  // On disk, so that the daemon's next start can reap what this process leaves behind if it is SIGKILLed.
  recordChildGroups({
    dir: deps.paths.children,
    onError: (err) => deps.log.warn(`could not record a child process group: ${err.message}`),
  });
  return createMcpSupervisor({
    log: deps.log.withTag("mcp"),
    discoveryTimeoutMs: discoveryTimeoutOf(deps.config),
    maxAttempts: deps.config.fermix_core?.plugins?.discovery_attempts,
    onDiscovered: (plugin, tools) =>
      toolCache.write({ name: plugin.name, version: plugin.manifest.version, dir: plugin.dir }, tools),
  });
}
