import type { McpServerHandle } from "../../plugins/mcp-rail/supervisor.ts";
import type { OutboundServer } from "./server-config.ts";
import type { ServerState } from "./server-state.ts";

/** One configured server as `fermix doctor` and the status views show it. */
export type OutboundStatus = {
  server: string;
  status: "disabled" | "invalid" | "starting" | "ready" | "quarantined" | "unreachable" | "idle";
  detail: string;
  tools: number;
  fix?: string;
};

/** One server's row: its live handle when this process runs it, else what the last process remembered. */
export function statusOf(
  server: OutboundServer,
  handle: Pick<McpServerHandle, "status" | "reason" | "attempts" | "maxAttempts" | "tools"> | undefined,
  last: ServerState | undefined,
  remembered?: number,
  daemonAlive?: (pid: number) => boolean,
): OutboundStatus {
  const base = { server: server.configName, tools: 0 };
  const fix = server.config.url
    ? `check that ${server.config.url} is up and speaks MCP (streamable HTTP); after fixing [mcp.servers.${server.configName}]: fermix restart`
    : `run \`${[server.config.command, ...(server.config.args ?? [])].join(" ")}\` by hand to see why; after fixing [mcp.servers.${server.configName}]: fermix restart`;
  if (!server.enabled) return { ...base, status: "disabled", detail: "enabled = false" };
  if (server.problem) return { ...base, status: "invalid", detail: server.problem, fix: server.problem };
  const live = handle && handle.status !== "stopped" ? handle : undefined;
  if (live?.status === "ready") {
    const n = live.tools().length;
    return { ...base, status: "ready", tools: n, detail: `ready, ${n} tool${n === 1 ? "" : "s"}` };
  }
  if (live?.status === "starting") {
    return {
      ...base,
      status: "starting",
      detail: live.attempts ? `starting (discovery attempt ${live.attempts}/${live.maxAttempts})` : "starting",
    };
  }
  if (live?.status === "quarantined") {
    return { ...base, status: "quarantined", detail: `quarantined: ${live.reason}`, fix };
  }
  if (last?.state === "quarantined" || last?.state === "unreachable") {
    const what = last.state === "quarantined" ? "quarantined" : "not reachable";
    return {
      ...base,
      status: last.state,
      detail: `${what} at ${last.at}: ${last.reason ?? "no reason recorded"}`,
      fix,
    };
  }
  // Written by the daemon that runs now (doctor checks its pid): its word is the live state.
  if (last?.state === "ready" && last.role === "daemon" && daemonAlive?.(last.pid)) {
    const n = last.tools ?? 0;
    return { ...base, status: "ready", tools: n, detail: `ready, ${n} tool${n === 1 ? "" : "s"} (in the daemon)` };
  }
  if (last?.state === "ready" || remembered !== undefined) {
    const n = last?.tools ?? remembered ?? 0;
    return {
      ...base,
      status: "ready",
      tools: n,
      detail: `${n} tool${n === 1 ? "" : "s"} at the last discovery (${last?.at ?? "earlier"})`,
    };
  }
  if (last?.state === "starting") {
    const attempt = last.attempt ? `discovery attempt ${last.attempt}/${last.max_attempts}, ` : "";
    return { ...base, status: "starting", detail: `starting (${attempt}as of ${last.at})` };
  }
  return {
    ...base,
    status: "idle",
    detail: "not discovered yet (the daemon starts it; fermix ask waits up to 3 s for it once)",
  };
}
