import type { PolicyClass } from "../../capabilities/tool.ts";
import type { Config } from "../../config/schema.ts";
import { sha256Hex } from "../../runtime/hash.ts";

/** One `[mcp.servers.<name>]` block as config.toml holds it (validated by config/schema.ts). */
export type McpServerConfig = NonNullable<NonNullable<Config["mcp"]>["servers"]>[string];
/** The classes an owner writes in config.toml (the earlier product's vocabulary). */
export type McpPolicyClass = NonNullable<McpServerConfig["policy_class"]>;

/** `mcp_` + name + `_` must leave room for a tool's own name within the 64-byte limit. */
export const MAX_SERVER_NAME_BYTES = 32;

type Issue = {
  message: string;
  received?: string;
  path: [{ type: "object"; origin: "value"; input: Record<string, unknown>; key: string; value: unknown }];
};

/**
 * What config/schema.ts reports about one server beyond each key's own type: exactly one of `command` or
 * `url`, the keys that belong to the other kind, and env values that are really pass_env. Each issue is
 * named at its key, so the load error points at the line to change.
 */
export function mcpServerProblems(server: Record<string, unknown>): Issue[] {
  const at = (key: string, message: string): Issue => ({
    message,
    received: server[key] === undefined ? "undefined" : JSON.stringify(server[key]),
    path: [{ type: "object", origin: "value", input: server, key, value: server[key] }],
  });
  const issues: Issue[] = [];
  const hasCommand = server.command !== undefined;
  const hasUrl = server.url !== undefined;
  if (hasCommand && hasUrl) {
    issues.push(at("url", "either command (a local server) or url (a streamable-HTTP server), not both: remove one"));
  } else if (!hasCommand && !hasUrl) {
    issues.push(at("command", 'a command to run (e.g. command = "npx"), or url = "http://…" for an HTTP server'));
  }
  if (hasUrl) {
    for (const key of ["args", "env", "pass_env"]) {
      if (server[key] !== undefined) issues.push(at(key, `no ${key} for a url server (${key} is for a command)`));
    }
  }
  if (hasCommand && server.headers !== undefined) {
    issues.push(at("headers", "no headers for a command server (headers are for a url)"));
  }
  const env = (server.env ?? {}) as Record<string, string>;
  for (const [name, value] of Object.entries(env)) {
    if (/^\$env:/i.test(value) || /^\$\{?[A-Za-z_][A-Za-z0-9_]*\}?$/.test(value)) {
      issues.push(
        at("env", `a literal value for ${name}; to pass the daemon's own ${name} through, list it in pass_env instead`),
      );
    }
  }
  const passed = new Set((server.pass_env ?? []) as string[]);
  for (const name of Object.keys(env)) {
    if (passed.has(name)) issues.push(at("pass_env", `${name} set in env or passed in pass_env, not both`));
  }
  return issues;
}

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
