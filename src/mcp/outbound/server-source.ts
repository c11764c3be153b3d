import type { SecretRef } from "../../config/sections/secret-ref.ts";
import { McpRuntimeMissing } from "../../plugins/mcp-rail/launch.ts";
import type { McpTool } from "../../plugins/mcp-rail/mcp-tool.ts";
import type { ProcessSpec } from "../../plugins/mcp-rail/process-transport.ts";
import type { McpSource } from "../../plugins/mcp-rail/source.ts";
import { which } from "../../runtime/processes.ts";
import { systemPath } from "../../sandbox/child-env.ts";
import { ownerFetch } from "./owner-fetch.ts";
import type { OutboundServer } from "./server-config.ts";
import { outboundToolNames } from "./tool-names.ts";

/** A configured server's key in the shared supervisor: `:` keeps it apart from every plugin name. */
export const handleName = (server: OutboundServer) => `mcp:${server.name}`;

export type SourceDeps = {
  /** The daemon's (or the ask's) environment: only PATH, HOME, LANG and the server's pass_env names are read. */
  env: Record<string, string | undefined>;
  /** Where a command server runs. */
  cwd: string;
  resolveSecret(ref: SecretRef, slot: string): string;
  onDiscovered?: (tools: McpTool[]) => void;
};

/**
 * The environment a command server gets: built from nothing, like a plugin's (the daemon's holds provider
 * keys), with the server's own `env` values and exactly the names its `pass_env` lists.
 */
export function outboundEnv(server: OutboundServer, from: Record<string, string | undefined>): Record<string, string> {
  const env: Record<string, string> = { PATH: from.PATH || systemPath(process.platform), LANG: from.LANG || "C.UTF-8" };
  if (from.HOME) env.HOME = from.HOME;
  for (const name of server.config.pass_env ?? []) {
    const value = from[name];
    if (value !== undefined) env[name] = value;
  }
  Object.assign(env, server.config.env ?? {});
  return env;
}

/** How to run a command server; McpRuntimeMissing (quarantine, no retries) when the command is nowhere. */
export function outboundSpec(server: OutboundServer, deps: Pick<SourceDeps, "env" | "cwd">): ProcessSpec {
  const env = outboundEnv(server, deps.env);
  const wanted = server.config.command ?? "";
  const command = which(wanted, { PATH: env.PATH ?? "" });
  if (!command) {
    throw McpRuntimeMissing(
      `${handleName(server)}: ${wanted} is not on PATH; install it, or set [mcp.servers.${server.configName}] command to its full path`,
      { plugin: handleName(server), command: wanted },
    );
  }
  return { command, args: [...(server.config.args ?? [])], cwd: deps.cwd, env };
}

/** The slot a header's secret is looked up under (its keyring entry, and its name in errors). */
export function headerSlot(server: OutboundServer, header: string): string {
  return `MCP_${server.name.toUpperCase()}_${header.toUpperCase().replace(/[^A-Z0-9]+/g, "_")}`;
}

/** An `[mcp.servers]` entry as something the shared supervisor runs. */
export function outboundSource(server: OutboundServer, deps: SourceDeps): McpSource {
  const name = handleName(server);
  const fix = server.config.url
    ? `check that ${server.config.url} is up and speaks MCP (streamable HTTP), then: fermix restart`
    : `run \`${[server.config.command, ...(server.config.args ?? [])].join(" ")}\` by hand to see why, fix [mcp.servers.${server.configName}] in config.toml, then: fermix restart`;
  return {
    name,
    toolNames: (mcpNames) => outboundToolNames(server.name, mcpNames),
    doctorCommand: `fermix doctor (${fix})`,
    onDiscovered: deps.onDiscovered,
    async connect(hooks) {
      if (server.config.url) {
        const headers: Record<string, string> = {};
        for (const [header, ref] of Object.entries(server.config.headers ?? {})) {
          headers[header] = deps.resolveSecret(ref, headerSlot(server, header));
        }
        const { connectHttp } = await import("./http-transport.ts");
        return connectHttp({
          label: name,
          url: server.config.url,
          headers,
          fetch: ownerFetch(server.config.url),
          hooks,
        });
      }
      const spec = outboundSpec(server, deps);
      const { connectOnce } = await import("../../plugins/mcp-rail/connect.ts");
      return connectOnce({
        plugin: name,
        spec,
        timeoutMs: hooks.timeoutMs,
        onSpawn: hooks.onSpawn,
        onDiagnostic: hooks.onDiagnostic,
        onToolsChanged: hooks.onToolsChanged,
      });
    },
  };
}
