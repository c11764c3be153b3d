import type { AnyTool } from "../capabilities/tool.ts";
import type { Config } from "../config/schema.ts";
import type { DevLocalProblem } from "./dev-local.ts";
import { type CredentialDeps, pluginCredentials } from "./plugin-credentials.ts";
import type { PluginHost, PluginState } from "./plugin-host-contract.ts";
import { httpPluginTools } from "./plugin-tools.ts";

/** The plugin states for one config and one signature of the files besides it, with what turns derive from them. */
export type Computed = {
  config: Config;
  signature: string;
  states: PluginState[];
  http: AnyTool[];
  problems: DevLocalProblem[];
};

/** What the next server sync starts fresh: quarantined servers, and dev_local ones. */
export type Restart = { quarantined: boolean; devLocal: boolean };

export type StateCacheDeps = CredentialDeps & {
  host: Pick<PluginHost, "activeStates" | "problems">;
  log: { error(msg: string): void; warn(msg: string): void };
  inputsSignature: (config: Config) => string;
  /** Each new computation, in order; absent where servers start only on a tool call. */
  sync?: (next: Computed, restart: Restart) => void;
};

export type StateCache = {
  statesFor(config: Config): Promise<Computed>;
  latest(): Computed | undefined;
  /** The computation under way, if any. */
  computing(): Promise<Computed> | undefined;
  /** Computes again from scratch; the sync that follows restarts what `restart` names. */
  recompute(config: Config, restart: Restart): Promise<void>;
};

/** The servers of ready plugins whose manifest puts tools on the MCP rail. */
export const mcpStates = (from: Computed) =>
  from.states.filter((s) => s.status === "ready" && s.dir && s.manifest?.tools.some((t) => t.rail === "mcp"));

/**
 * Plugin states computed when their inputs change and reused by every turn in between. Turns asking at once
 * for the same inputs share one computation; other inputs queue behind it, so the latest states are always
 * those of the latest inputs asked for.
 */
export function createStateCache(deps: StateCacheDeps): StateCache {
  let computing: { config: Config; signature: string; promise: Promise<Computed> } | undefined;
  let latest: Computed | undefined;
  let reportedProblems = "";
  /** Set by reload(): the next sync starts quarantined servers fresh (and dev_local ones, when asked). */
  let restartNext: Restart = { quarantined: false, devLocal: false };

  const reportProblems = (problems: DevLocalProblem[]) => {
    const text = problems.map((p) => p.message).join("\n");
    if (text === reportedProblems) return;
    reportedProblems = text;
    for (const problem of problems) deps.log.error(`plugin loading failed: ${problem.message}`);
  };

  const statesFor = async (config: Config): Promise<Computed> => {
    const signature = deps.inputsSignature(config);
    const current = latest;
    if (current && current.config === config && current.signature === signature) return current;
    if (computing && computing.config === config && computing.signature === signature) return computing.promise;
    const before = computing?.promise;
    const promise = (async () => {
      await before?.catch(() => {});
      const states = await deps.host.activeStates(config);
      const problems = await deps.host.problems(config);
      const credentials = pluginCredentials(deps, config);
      const next = { config, signature, states, http: httpPluginTools(states, credentials), problems };
      reportProblems(problems);
      if (deps.sync) {
        const restart = restartNext;
        restartNext = { quarantined: false, devLocal: false };
        deps.sync(next, restart);
      }
      latest = next;
      return next;
    })();
    computing = { config, signature, promise };
    try {
      return await promise;
    } finally {
      if (computing?.promise === promise) computing = undefined;
    }
  };

  return {
    statesFor,
    latest: () => latest,
    computing: () => computing?.promise,
    async recompute(config, restart) {
      latest = undefined;
      restartNext = restart;
      await statesFor(config);
    },
  };
}
