import { outboundServers } from "../mcp/outbound/server-config.ts";
import { createServerMemory, type ServerState } from "../mcp/outbound/server-state.ts";
import { statusOf } from "../mcp/outbound/status.ts";
import { type DoctorRow, defineCheck, skippedForConfig } from "./check.ts";

/**
 * One row per `[mcp.servers]` entry: ready (with its tool count), starting, quarantined or unreachable with the
 * reason and the fix. Read from what the daemon (or the last one-shot ask) recorded under $FERMIX_HOME/mcp, so
 * doctor starts no server and waits on none.
 */
export const mcpServersCheck = defineCheck({
  id: "mcp_servers",
  async run(ctx) {
    if (!ctx.config) return [skippedForConfig("mcp_servers", "MCP servers")];
    const servers = outboundServers(ctx.config);
    if (!servers.length) return [];
    const memory = createServerMemory(ctx.paths.home, ctx.now);
    return servers.map((server): DoctorRow => {
      const last = current(memory.state(server));
      const row = statusOf(server, undefined, last, memory.tools(server)?.length, alive);
      const id = `mcp_servers.${server.name}`;
      const label = `${server.configName} (${server.config.url ?? server.config.command})`;
      const status =
        row.status === "invalid"
          ? "fail"
          : row.status === "quarantined" || row.status === "unreachable"
            ? "warn"
            : "ok";
      return {
        id,
        title: "MCP servers",
        status,
        detail: `${label}: ${row.detail}`,
        ...(row.fix ? { fix: row.fix } : {}),
      };
    });
  },
});

/** A daemon's "starting" outlives the daemon in the file; once its writer is gone it says nothing current. */
function current(state: ServerState | undefined): ServerState | undefined {
  if (state?.state !== "starting") return state;
  return alive(state.pid) ? state : undefined;
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}
