import type { Config } from "../../config/schema.ts";
import type { McpInboundConfig } from "../../config/sections/mcp.ts";
import type { SecretRef } from "../../config/sections/secret-ref.ts";

/** The coarse classes an MCP client's owner picks from; each built-in maps to one (exposed-tools.ts). */
export type InboundClass = "read_only" | "read_write" | "exec" | "network" | "external_api";

/** [mcp.inbound] with its defaults filled in: what the inbound server reads, on either transport. */
export type InboundSettings = {
  enabled: boolean;
  transport: "stdio" | "streamable_http";
  exposeKinds: readonly string[];
  exposeClasses: readonly InboundClass[];
  allowedTools: readonly string[];
  deniedTools: readonly string[];
  tools: NonNullable<McpInboundConfig["tools"]>;
  serverName: string;
  serverVersion?: string;
  requestTimeoutMs: number;
  http: { path: string; authToken?: SecretRef };
};

export const DEFAULT_INBOUND_PATH = "/mcp";
/** A turn's own default bound (`fermix ask`'s), so an MCP ask and a CLI ask give up alike. */
export const DEFAULT_INBOUND_TIMEOUT_MS = 300_000;

export function inboundSettings(config: Config): InboundSettings {
  const inbound = config.mcp?.inbound ?? {};
  return {
    enabled: inbound.enabled === true,
    transport: inbound.transport ?? "stdio",
    exposeKinds: inbound.expose_kinds ?? ["builtin"],
    exposeClasses: inbound.expose_policy_classes ?? ["read_only", "read_write"],
    allowedTools: inbound.allowed_tools ?? [],
    deniedTools: inbound.denied_tools ?? [],
    tools: inbound.tools ?? {},
    serverName: inbound.server_name ?? "fermix",
    serverVersion: inbound.server_version,
    requestTimeoutMs: inbound.request_timeout_ms ?? DEFAULT_INBOUND_TIMEOUT_MS,
    http: { path: inbound.http?.path ?? DEFAULT_INBOUND_PATH, authToken: inbound.http?.auth_token },
  };
}

/** The keyring slot of [mcp.inbound.http] auth_token = "@keyring" (and what errors name instead of the value). */
export const MCP_INBOUND_TOKEN_SLOT = "MCP_INBOUND_AUTH_TOKEN";
