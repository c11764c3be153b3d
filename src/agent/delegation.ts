import type { Registry } from "../capabilities/registry-contract.ts";
import type { Delegation } from "../capabilities/tool.ts";
import type { Env } from "../config/env.ts";
import type { Config } from "../config/schema.ts";
import type { SecretDeps } from "../config/secrets.ts";
import { oneShotSubagentRoutes } from "../providers/one-shot-route.ts";
import type { RouterDeps } from "../providers/router.ts";
import { subagentRoutes } from "../providers/routing-config.ts";
import { runSubagents } from "./subagents.ts";

/** The subagents tool's delegation as the app wires it. */
export function createDelegation(deps: {
  registry: Registry;
  router: RouterDeps;
  env: Env;
  secrets: SecretDeps;
  liveConfig: () => Config;
  agentName: string;
  now: () => number;
}): Delegation {
  return {
    run: (tasks, parent, opts) =>
      runSubagents(tasks, parent, opts, {
        registry: deps.registry,
        router: deps.router,
        // As config.toml says now (like unpinned jobs): a model_routing_config change applies to the next sub-agent.
        routes: (oneShot) =>
          oneShot
            ? oneShotSubagentRoutes(deps.liveConfig(), deps.env, deps.secrets, oneShot)
            : subagentRoutes(deps.liveConfig(), deps.env, deps.secrets),
        agentName: deps.agentName,
        now: deps.now,
      }),
  };
}
