import type { TurnAddition, TurnOpening } from "../agent/turn-addition.ts";
import type { Env } from "../config/env.ts";
import type { FermixPaths } from "../config/paths.ts";
import type { Config } from "../config/schema.ts";
import type { SecretRef } from "../config/sections/secret-ref.ts";
import type { GuardedFetch } from "../net/types.ts";
import type { Log } from "../observability/log.ts";
import { defineSubsystem } from "../subsystem.ts";
import { pluginsConfigured } from "./dev-local.ts";
import type { McpSupervisor } from "./mcp-rail/supervisor.ts";
import type { PluginRuntime } from "./plugin-runtime-contract.ts";
import { pluginsSection, unavailablePluginTool } from "./prompt-section.ts";

export type PluginsDeps = {
  paths: FermixPaths;
  config: Config;
  liveConfig: () => Config;
  net: GuardedFetch;
  env: Env;
  log: Log;
  resolveSecret(ref: SecretRef, slot: string): string;
  role: "daemon" | "oneshot";
  mcpSupervisor(): Promise<McpSupervisor>;
};

/**
 * Plugins cost nothing until one is enabled (or dev_local names a folder): their modules load on the first turn
 * that has one, or at the daemon's start, which runs the ready MCP plugins' servers in the background. Once the
 * runtime exists every turn asks it, so disabling the last plugin stops its server.
 */
export const pluginsSubsystem = defineSubsystem({
  name: "plugins",
  wanted: (deps: PluginsDeps) => pluginsConfigured(deps.liveConfig()),
  load: async (deps: PluginsDeps): Promise<PluginRuntime> => {
    const [{ buildPluginRuntime }, mcp] = await Promise.all([
      import("./plugin-runtime-factory.ts"),
      deps.mcpSupervisor(),
    ]);
    return buildPluginRuntime({
      paths: deps.paths,
      config: deps.config,
      net: deps.net,
      env: deps.env,
      log: deps.log.withTag("plugins"),
      resolveSecret: deps.resolveSecret,
      role: deps.role,
      mcp,
    });
  },
  start: (runtime, deps) => runtime.startServers(deps.liveConfig()),
  // In the background: a server that never answers must not hold up the daemon or any turn.
  startFailed: (err, deps) => deps.log.withTag("plugins").error(`plugin servers did not start: ${err.message}`),
  stop: (runtime) => runtime.stopAll(),
  turn: async (runtime, opening: TurnOpening, deps): Promise<TurnAddition> => {
    const view = await runtime.forTurn(opening.config).catch((err: unknown) => {
      deps.log.withTag("plugins").warn(`plugins could not be read: ${(err as Error).message}`);
      return undefined;
    });
    const states = () => view?.summaries() ?? [];
    // The daemon logs these (once per change); a one-shot ask has only stderr to be loud on.
    if (deps.role === "oneshot")
      for (const problem of view?.problems ?? []) opening.onNotice?.(`fermix: ${problem.message}`);
    return {
      tools: view && (() => view.tools()),
      skills: view?.skills ?? [],
      // The owner's plugins are no business of a guest, who can call none of them.
      promptSection: () => (opening.caller.trust === "operator" ? pluginsSection(states()) : undefined),
      // A turn reads only the plugins on this machine; a catalog plugin that is disabled is looked up when named.
      unknownToolHint: async (name) =>
        unavailablePluginTool(name, states()) ?? (await runtime.catalogHint(name, opening.config)),
    };
  },
  turnError: (err, deps) => deps.log.withTag("plugins").warn(`plugins could not be read: ${err.message}`),
});
