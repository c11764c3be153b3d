import type { AnyTool } from "../capabilities/tool.ts";
import type { Config } from "../config/schema.ts";
import { oauthClientSecretSlot, pluginSecretSlot } from "../config/secret-slots.ts";
import type { Log } from "../observability/log.ts";
import type { PluginSkills } from "../skills/sources.ts";
import type { DevLocalProblem } from "./dev-local.ts";
import { type LivePlugin, liveStatus } from "./live-status.ts";
import type { McpPlugin } from "./mcp-rail/launch.ts";
import { type McpServerHandle, type McpSupervisor, SupervisorClosed } from "./mcp-rail/supervisor.ts";
import type { ToolCache } from "./mcp-rail/tool-cache.ts";
import { type KnownMcpTool, mcpPluginTools } from "./mcp-tools.ts";
import type { TokenStore } from "./oauth/token-store.ts";
import { type PluginHost, type PluginState, summaryOf } from "./plugin-host.ts";
import { httpPluginTools } from "./plugin-tools.ts";
import { type PluginSummary, unavailablePluginTool } from "./prompt-section.ts";
import { pluginConfigValues } from "./settings/plugin-config.ts";

export type PluginRuntimeDeps = {
  host: PluginHost;
  tokens: TokenStore;
  mcp: McpSupervisor;
  toolCache: ToolCache;
  env: Record<string, string | undefined>;
  log: Log;
  resolveSecret(ref: NonNullable<NonNullable<Config["fermix_core"]>["plugin_secrets"]>[string], slot: string): string;
  /**
   * "eager" (the daemon): an MCP plugin's server starts in the background as soon as the plugin is ready.
   * "lazy" (a one-shot ask): it starts only when the model calls one of its tools.
   */
  serverStart: "eager" | "lazy";
  /** How long a tool call waits for a server that is still starting before it answers "starting". */
  callWaitMs: number;
  /**
   * A cheap signature (file times) of what plugin states are computed from besides config.toml: the store,
   * auth.json, secrets, dev_local folders. A change means the states are computed again.
   */
  inputsSignature: (config: Config) => string;
};

/** What a turn sees of the plugins; the getters stay current while the turn runs (a server coming up mid-turn). */
export type PluginView = {
  summaries(): PluginSummary[];
  tools(): readonly AnyTool[];
  /** dev_local folders that did not load, each naming the folder and the problem. */
  problems: readonly DevLocalProblem[];
  /** The skills enabled plugins declare, to be read in place. */
  skills: readonly PluginSkills[];
};

type Computed = {
  config: Config;
  signature: string;
  states: PluginState[];
  http: AnyTool[];
  problems: DevLocalProblem[];
};

/**
 * What turns get from the plugins, computed when something changes — config.toml, the store, a secret, a
 * server's status or tool list — and reused by every turn in between. MCP-rail servers are supervised here:
 * started in the background (never in front of a turn), stopped when their plugin stops being ready.
 */
export function createPluginRuntime(deps: PluginRuntimeDeps) {
  let computing: { config: Config; signature: string; promise: Promise<Computed> } | undefined;
  let latest: Computed | undefined;
  // Bumped by every server status or tool-list change; the MCP part of the view is rebuilt when it moves.
  let generation = 0;
  let built: { generation: number; from: Computed; summaries: PluginSummary[]; tools: AnyTool[] } | undefined;
  /** plugin → the launch spec its server runs with, so a changed folder or setting restarts it. */
  const launched = new Map<string, string>();
  let reportedProblems = "";
  /** The latest start/stop of servers, running beside the turns. */
  let syncing: Promise<void> = Promise.resolve();
  /** Set by reload(): the next sync starts quarantined servers fresh (and dev_local ones, when asked). */
  let restartNext: { quarantined: boolean; devLocal: boolean } = { quarantined: false, devLocal: false };

  const statesFor = async (config: Config): Promise<Computed> => {
    const signature = deps.inputsSignature(config);
    const current = latest;
    if (current && current.config === config && current.signature === signature) return current;
    // Turns asking at once for the same inputs share one computation; other inputs queue behind it, so the
    // latest states are always those of the latest inputs asked for.
    if (computing && computing.config === config && computing.signature === signature) return computing.promise;
    const before = computing?.promise;
    const promise = (async () => {
      await before?.catch(() => {});
      const states = await deps.host.activeStates(config);
      const problems = await deps.host.problems(config);
      const credentials = {
        credential: async (plugin: PluginState) => credentialOf(plugin, config),
        refresh: async (plugin: PluginState) => refreshOf(plugin, config),
      };
      const next = { config, signature, states, http: httpPluginTools(states, credentials), problems };
      reportProblems(problems);
      // Never in front of a turn: stopping a replaced server can take its grace period.
      // One sync at a time, in the order the states were computed, so an older sync never undoes a newer one.
      if (deps.serverStart === "eager") {
        const restart = restartNext;
        restartNext = { quarantined: false, devLocal: false };
        syncing = syncing
          .then(() => syncServers(next, restart))
          .catch((err) => deps.log.error(`starting plugin servers failed: ${(err as Error).message}`));
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

  const reportProblems = (problems: DevLocalProblem[]) => {
    const text = problems.map((p) => p.message).join("\n");
    if (text === reportedProblems) return;
    reportedProblems = text;
    for (const problem of problems) deps.log.error(`plugin loading failed: ${problem.message}`);
  };

  const mcpStates = (from: Computed) =>
    from.states.filter((s) => s.status === "ready" && s.dir && s.manifest?.tools.some((t) => t.rail === "mcp"));

  const launchSpec = (plugin: PluginState, config: Config): McpPlugin => ({
    name: plugin.name,
    dir: plugin.dir!,
    manifest: plugin.manifest!,
    configValues: pluginConfigValues(config, plugin.name),
    env: deps.env,
  });
  const specKey = (spec: McpPlugin) => `${spec.dir}\n${spec.manifest.version}\n${JSON.stringify(spec.configValues)}`;

  /** Starts (or restarts, on a changed folder or setting) the servers of ready plugins; stops the others. */
  const syncServers = async (from: Computed, restart: { quarantined: boolean; devLocal: boolean }) => {
    const wanted = new Map(mcpStates(from).map((s) => [s.name, launchSpec(s, from.config)]));
    const devLocal = new Set(from.states.filter((s) => s.source === "dev_local").map((s) => s.name));
    for (const name of [...launched.keys()]) {
      if (!wanted.has(name)) {
        launched.delete(name);
        await deps.mcp.stop(name);
      }
    }
    for (const [name, spec] of wanted) {
      // `launched` is set when a start is asked for, before the supervisor's queue runs it: no double starts.
      const stale = launched.get(name) !== specKey(spec);
      const quarantined = restart.quarantined && deps.mcp.get(name)?.status === "quarantined";
      if (stale || quarantined || (restart.devLocal && devLocal.has(name))) {
        try {
          await start(spec);
        } catch (err) {
          if (SupervisorClosed.is(err)) return; // shutting down: nothing more to start
          throw err;
        }
      }
    }
  };

  const start = async (spec: McpPlugin): Promise<McpServerHandle> => {
    launched.set(spec.name, specKey(spec));
    return deps.mcp.start(spec);
  };

  /** A call of an MCP plugin's tool: its server started first if this process has not started it yet. */
  const callMcp = (plugin: PluginState) => async (name: string, args: Record<string, unknown>, signal: AbortSignal) => {
    const spec = launchSpec(plugin, latest?.config ?? {});
    let handle = deps.mcp.get(plugin.name);
    if (!handle || handle.status === "stopped") handle = await start(spec);
    return handle.call(name, args, signal, { waitMs: deps.callWaitMs });
  };

  /** The tools of one MCP plugin as things stand: its server's own list, else the cached or declared one. */
  const knownTools = (plugin: PluginState, handle: McpServerHandle | undefined): KnownMcpTool[] => {
    if (handle?.status === "ready") return handle.tools();
    if (handle?.status === "quarantined") return [];
    const cached = deps.toolCache.read({
      name: plugin.name,
      version: plugin.manifest?.version ?? "",
      dir: plugin.dir ?? "",
    });
    if (cached) return cached;
    return (plugin.manifest?.tools ?? [])
      .filter((t) => t.rail === "mcp")
      .map((t) => ({ name: t.name, description: t.description, inputSchema: t.parameters }));
  };

  const build = (from: Computed) => {
    if (built && built.generation === generation && built.from === from) return built;
    const at = generation;
    const tools: AnyTool[] = [...from.http];
    const mcpNames = new Set(mcpStates(from).map((s) => s.name));
    const summaries: PluginSummary[] = from.states.map((state) => {
      if (!mcpNames.has(state.name)) return summaryOf(state);
      const handle = deps.mcp.get(state.name);
      const known = knownTools(state, handle);
      tools.push(...mcpPluginTools(known, callMcp(state)));
      const live = liveStatus(state, handle, { serversRun: deps.serverStart === "eager" });
      return {
        name: state.name,
        enabled: true,
        status: live.status,
        detail: live.detail,
        fix: live.fix,
        tools: known.map((t) => t.name),
      };
    });
    built = { generation: at, from, summaries, tools };
    return built;
  };

  async function forTurn(config: Config): Promise<PluginView> {
    const from = await statesFor(config);
    // The same config read again from newer files (a signature change) replaces this one mid-turn; another config does not.
    const current = () => build(latest?.config === from.config ? latest : from);
    return {
      summaries: () => current().summaries,
      tools: () => current().tools,
      problems: from.problems,
      skills: from.states
        .filter((s) => s.enabled && s.manifest?.skills.length && s.dir)
        .map((s) => ({ plugin: s.name, dir: s.dir!, skills: s.manifest!.skills })),
    };
  }

  /**
   * Every plugin this home knows, with its live state: the readiness ladder, then for a ready MCP plugin
   * whether its server is starting (attempt n/N), ready (n tools) or quarantined (why) — in this process.
   */
  async function report(config: Config): Promise<{ plugins: LivePlugin[]; problems: DevLocalProblem[] }> {
    const states = await deps.host.states(config);
    const from = await statesFor(config);
    const mcpNames = new Set(mcpStates(from).map((s) => s.name));
    return {
      plugins: states.map((state) =>
        liveStatus(state, mcpNames.has(state.name) ? deps.mcp.get(state.name) : undefined, {
          serversRun: deps.serverStart === "eager" && mcpNames.has(state.name),
        }),
      ),
      problems: from.problems,
    };
  }

  /** Re-reads everything and starts quarantined servers fresh: what enable, disable and `plugins reload` ask. */
  async function reload(config: Config, opts: { devLocal?: boolean } = {}): Promise<void> {
    latest = undefined;
    restartNext = { quarantined: true, devLocal: opts.devLocal === true };
    await statesFor(config);
    generation++;
  }

  async function credentialOf(plugin: PluginState, config: Config): Promise<string | undefined> {
    const type = plugin.manifest?.auth.type;
    if (type === "api_key") {
      const ref = config.fermix_core?.plugin_secrets?.[plugin.name] ?? "@keyring";
      try {
        return deps.resolveSecret(ref, pluginSecretSlot(plugin.name));
      } catch {
        return undefined;
      }
    }
    if (type === "oauth2") return deps.tokens.get(plugin.name)?.access_token;
    return undefined;
  }

  async function refreshOf(plugin: PluginState, config: Config): Promise<string | undefined> {
    const provider = (plugin.manifest?.auth as { provider?: string } | undefined)?.provider;
    const client = provider ? config.fermix_core?.oauth?.[provider] : undefined;
    if (!client?.client_id || !client.client_secret) return undefined;
    try {
      const { refresh: refreshToken } = await import("./oauth/login.ts");
      const token = await refreshToken(plugin.name, {
        clientId: client.client_id,
        clientSecret: deps.resolveSecret(client.client_secret, oauthClientSecretSlot(provider!)),
        store: deps.tokens,
      });
      return token.access_token;
    } catch (err) {
      deps.log.warn(`refreshing ${plugin.name}'s token failed: ${(err as Error).message}`);
      return undefined;
    }
  }

  /**
   * What to say about a tool named after a plugin this turn did not read (a catalog plugin that is disabled or
   * not installed): the catalog is loaded for that, when it happens, rather than for every turn.
   */
  async function catalogHint(tool: string, config: Config): Promise<string | undefined> {
    try {
      return unavailablePluginTool(tool, (await deps.host.states(config)).map(summaryOf));
    } catch {
      return undefined;
    }
  }

  return {
    catalogHint,
    forTurn,
    report,
    reload,
    /** A server's status or tool list changed: the next look at the view rebuilds its MCP part. */
    serverChanged: () => {
      generation++;
    },
    /** Resolves once no server is starting any more (each ready or quarantined). */
    settled: async () => {
      await computing?.promise;
      await syncing;
      await Promise.all(deps.mcp.all().map((h) => h.ready()));
    },
    /** Brings the servers of ready plugins up in the background (the daemon, at boot). */
    startServers: (config: Config) => statesFor(config).then(() => undefined),
    stopAll: () => deps.mcp.stopAll(),
  };
}

export type PluginRuntime = ReturnType<typeof createPluginRuntime>;
