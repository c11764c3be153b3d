import type { TurnAddition, TurnOpening } from "../../agent/turn-addition.ts";
import type { Env } from "../../config/env.ts";
import type { FermixPaths } from "../../config/paths.ts";
import type { Config } from "../../config/schema.ts";
import type { SecretRef } from "../../config/sections/secret-ref.ts";
import type { Log } from "../../observability/log.ts";
import type { McpSupervisor } from "../../plugins/mcp-rail/supervisor.ts";
import { defineSubsystem } from "../../subsystem.ts";
import type { OutboundMcp } from "./outbound-runtime-contract.ts";

export type OutboundMcpDeps = {
  paths: FermixPaths;
  config: Config;
  liveConfig: () => Config;
  env: Env;
  log: Log;
  /** A header's token is redacted from logs like a provider key. */
  resolveSecret(ref: SecretRef, slot: string): string;
  role: "daemon" | "oneshot";
  mcpSupervisor(): Promise<McpSupervisor>;
};

const configured = (config: Config) => Object.keys(config.mcp?.servers ?? {}).length > 0;

/**
 * The owner's [mcp.servers], on the plugins' MCP supervisor: started in the daemon's background at boot, their
 * tools offered to operator turns (a guest could call none of them anyway).
 */
export const outboundMcpSubsystem = defineSubsystem({
  name: "mcp-servers",
  wanted: (deps: OutboundMcpDeps) => configured(deps.liveConfig()),
  load: async (deps: OutboundMcpDeps): Promise<OutboundMcp> =>
    (await import("./outbound-runtime.ts")).createOutboundMcp({
      supervisor: deps.mcpSupervisor,
      home: deps.paths.home,
      env: deps.env,
      cwd: deps.env.HOME || deps.paths.home,
      log: deps.log.withTag("mcp"),
      resolveSecret: deps.resolveSecret,
      role: deps.role,
      callWaitMs:
        deps.role === "daemon" ? 5_000 : (deps.config.fermix_core?.plugins?.discovery_timeout_seconds ?? 10) * 1000,
    }),
  start: (mcp, deps) => mcp.startServers(deps.liveConfig()),
  startFailed: (err, deps) => deps.log.withTag("mcp").error(`MCP servers did not start: ${err.message}`),
  joinsTurn: (opening: TurnOpening, _deps, loaded) =>
    opening.caller.trust === "operator" && (loaded || configured(opening.config)),
  turn: async (mcp, opening: TurnOpening): Promise<TurnAddition> => ({ tools: await mcp.forTurn(opening.config) }),
  turnError: (err, deps) => deps.log.withTag("mcp").warn(`MCP servers could not be read: ${err.message}`),
});
