import type { PolicyClass } from "../../capabilities/caller.ts";
import type { Config } from "../../config/schema.ts";
import type { McpPolicyClass, McpServerConfig } from "../../config/sections/mcp.ts";
import { sha256Hex } from "../../runtime/hash.ts";

/** `mcp_` + name + `_` must leave room for a tool's own name within the 64-byte limit. */
export const MAX_SERVER_NAME_BYTES = 32;

/** A config name as the `<server>` of `mcp_<server>_<tool>`: lowercased, other characters as `_`, runs collapsed. */
export function sanitiseServerName(name: string): string {
  return name
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, "_")
    .replace(/_+/g, "_")
    .replace(/^_|_$/g, "");
}

/** One configured server, ready for the supervisor: its fermix name and a problem that keeps it from starting. */
export type OutboundServer = {
  /** The key in config.toml. */
  configName: string;
  /** `[a-z0-9_]`, the `<server>` of its tool names. */
  name: string;
  config: McpServerConfig;
  enabled: boolean;
  /** Changes when anything that decides how the server runs changes: a cached tool list is then stale. */
  fingerprint: string;
  /** Why it cannot run as configured (a name clash), with the fix. */
  problem?: string;
};

/** The configured servers in config order, each named, fingerprinted, and checked against the others. */
export function outboundServers(config: Config): OutboundServer[] {
  const servers = Object.entries(config.mcp?.servers ?? {});
  const seen = new Map<string, string>();
  return servers.map(([configName, server]) => {
    const name = sanitiseServerName(configName);
    let problem: string | undefined;
    if (!name) problem = `[mcp.servers.${configName}] needs a name with a letter or digit; rename the table`;
    else if (Buffer.byteLength(name) > MAX_SERVER_NAME_BYTES)
      problem = `[mcp.servers.${configName}]: the name is longer than ${MAX_SERVER_NAME_BYTES} characters; rename the table`;
    else if (seen.has(name))
      problem = `[mcp.servers.${configName}] and [mcp.servers.${seen.get(name)}] both become mcp_${name}_…; rename one`;
    if (name && !seen.has(name)) seen.set(name, configName);
    const { tools: _, policy_class: __, enabled: ___, ...launch } = server;
    return {
      configName,
      name: name || "server",
      config: server,
      enabled: server.enabled !== false,
      fingerprint: sha256Hex(JSON.stringify(launch)).slice(0, 16),
      ...(problem ? { problem } : {}),
    };
  });
}

/** The class a tool runs under: its own `[…tools.<tool>] policy_class`, else the server's, else external_api. */
export function configuredClass(server: McpServerConfig, mcpToolName: string): McpPolicyClass {
  return server.tools?.[mcpToolName]?.policy_class ?? server.policy_class ?? "external_api";
}

/**
 * The fermix class behind a configured one. None of them is a guest's (capabilities/policy.ts), so a guest never
 * sees an MCP tool whatever the owner writes; read_only also lets calls run in parallel.
 */
export function fermixClass(configured: McpPolicyClass): { policy: PolicyClass; readOnly: boolean } {
  switch (configured) {
    case "read_only":
      return { policy: "workspace_read", readOnly: true };
    case "read_write":
      return { policy: "workspace_write", readOnly: false };
    case "exec":
      return { policy: "exec", readOnly: false };
    case "network":
      return { policy: "network", readOnly: false };
    case "external_api":
      return { policy: "external_api", readOnly: false };
  }
}
