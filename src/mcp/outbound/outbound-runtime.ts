import type { AnyTool } from "../../capabilities/tool.ts";
import type { Config } from "../../config/schema.ts";
import type { SecretRef } from "../../config/sections/secret-ref.ts";
import type { Log } from "../../observability/log.ts";
import type { McpServerHandle, McpSupervisor } from "../../plugins/mcp-rail/supervisor.ts";
import { SupervisorClosed } from "../../plugins/mcp-rail/supervisor.ts";
import type { OutboundMcp } from "./outbound-runtime-contract.ts";
import { type OutboundServer, outboundServers } from "./server-config.ts";
import { handleName, outboundSource } from "./server-source.ts";
import { createServerMemory } from "./server-state.ts";
import { type OutboundStatus, statusOf } from "./status.ts";
import { type KnownTool, outboundTools } from "./tools.ts";

/** A one-shot ask waits this long for a server it has never discovered before going on without it. */
export const FIRST_DISCOVERY_WAIT_MS = 3_000;
/** …and after such a miss, asks this long do not wait for it again. */
export const FAILURE_MEMORY_MS = 10 * 60_000;

export type OutboundDeps = {
  supervisor: () => Promise<McpSupervisor>;
  home: string;
  env: Record<string, string | undefined>;
  cwd: string;
  log: Log;
  resolveSecret(ref: SecretRef, slot: string): string;
  /** "daemon": servers start at boot and stay up; "oneshot": started for a turn that needs them. */
  role: "daemon" | "oneshot";
  /** How long a tool call waits for a server that is mid-start. */
  callWaitMs: number;
  now?: () => number;
  firstDiscoveryWaitMs?: number;
  failureMemoryMs?: number;
};

/**
 * The owner's `[mcp.servers]`: their servers on the shared MCP supervisor, their tools offered to operator turns
 * as `mcp_<server>_<tool>`. Nothing here stands in front of a turn for long: the daemon starts servers in the
 * background, and a one-shot ask waits at most FIRST_DISCOVERY_WAIT_MS, once, for a server it has no tool
 * list for.
 */
export function createOutboundMcp(deps: OutboundDeps): OutboundMcp {
  const now = deps.now ?? Date.now;
  const memory = createServerMemory(deps.home, now);
  const launched = new Map<string, string>();
  let generation = 0;
  let watching = false;
  let built: { generation: number; key: string; tools: AnyTool[] } | undefined;
  let supervisor: McpSupervisor | undefined;
  /** The latest start/stop pass, so `settled` can wait for the servers it launches. */
  let syncing: Promise<void> = Promise.resolve();
  /** The servers this process started, by handle name, as configured when started. */
  const started = new Map<string, OutboundServer>();

  const runnable = (config: Config) => outboundServers(config).filter((s) => s.enabled && !s.problem);

  const persist = (server: OutboundServer, handle: McpServerHandle) => {
    if (handle.status === "stopped") return;
    const count = handle.status === "ready" ? handle.tools().length : undefined;
    memory.writeState(server, {
      state: handle.status,
      role: deps.role,
      ...(handle.reason ? { reason: handle.reason } : {}),
      ...(handle.attempts ? { attempt: handle.attempts, max_attempts: handle.maxAttempts } : {}),
      ...(count !== undefined ? { tools: count } : {}),
    });
  };

  const getSupervisor = async () => {
    const mcp = await deps.supervisor();
    supervisor = mcp;
    if (!watching) {
      watching = true;
      mcp.watch((handle) => {
        if (!handle.plugin.startsWith("mcp:")) return;
        generation++;
        // The daemon's live state is what doctor reads; a one-shot's passing states are not worth a write.
        const server = started.get(handle.plugin);
        if (server && deps.role === "daemon") persist(server, handle);
      });
    }
    return mcp;
  };

  const start = async (mcp: McpSupervisor, server: OutboundServer) => {
    launched.set(server.name, server.fingerprint);
    started.set(handleName(server), server);
    return mcp.start(
      outboundSource(server, {
        env: deps.env,
        cwd: deps.cwd,
        resolveSecret: deps.resolveSecret,
        onDiscovered: (tools) => {
          memory.writeTools(server, tools);
          memory.writeState(server, { state: "ready", role: deps.role, tools: tools.length });
        },
      }),
    );
  };

  /** Starts what config.toml configures now (a changed entry restarts), stops what it no longer does. */
  const sync = (wanted: OutboundServer[]): Promise<void> => {
    // One pass at a time, in order, so an older pass never undoes a newer one.
    const pass = syncing.then(() => syncNow(wanted));
    syncing = pass.catch(() => {});
    return pass;
  };
  const syncNow = async (wanted: OutboundServer[]) => {
    const mcp = await getSupervisor();
    const names = new Set(wanted.map((s) => s.name));
    for (const name of [...launched.keys()]) {
      if (!names.has(name)) {
        launched.delete(name);
        await mcp.stop(`mcp:${name}`);
      }
    }
    for (const server of wanted) {
      if (launched.get(server.name) === server.fingerprint) continue;
      try {
        await start(mcp, server);
      } catch (err) {
        if (SupervisorClosed.is(err)) return;
        throw err;
      }
    }
  };

  /** A call of one server's tool: the server started first when this process has not started it yet. */
  const caller =
    (server: OutboundServer) => async (name: string, args: Record<string, unknown>, signal: AbortSignal) => {
      const mcp = supervisor ?? (await deps.supervisor());
      let handle = mcp.get(handleName(server));
      if (!handle || handle.status === "stopped") handle = await start(mcp, server);
      return handle.call(name, args, signal, { waitMs: deps.callWaitMs });
    };

  /** One server's tools as things stand: its live list, else the remembered one (none once quarantined). */
  const known = (server: OutboundServer): KnownTool[] => {
    const handle = supervisor?.get(handleName(server));
    if (handle?.status === "ready") return handle.tools();
    if (handle?.status === "quarantined") return [];
    return memory.tools(server) ?? [];
  };

  const toolsOf = (servers: OutboundServer[]): AnyTool[] => {
    const key = servers
      .map((s) => `${s.name}:${s.fingerprint}:${JSON.stringify(s.config.tools ?? {})}${s.config.policy_class ?? ""}`)
      .join("\n");
    if (built && built.generation === generation && built.key === key) return built.tools;
    const tools = servers.flatMap((server) => outboundTools(server, known(server), caller(server)));
    built = { generation, key, tools };
    return tools;
  };

  /**
   * A one-shot ask: servers with a remembered tool list are offered from it (started only when a tool is
   * called); a server never discovered is started and waited for, all at once and at most the bounded wait;
   * one that missed it recently is left out until the memory of that miss runs out.
   */
  const prepareOneShot = async (servers: OutboundServer[]) => {
    const fresh = servers.filter((server) => {
      if (memory.tools(server)) return false;
      const last = memory.state(server);
      const missed = last && (last.state === "unreachable" || last.state === "quarantined");
      return !(missed && now() - Date.parse(last.at) < (deps.failureMemoryMs ?? FAILURE_MEMORY_MS));
    });
    if (!fresh.length) return;
    const mcp = await getSupervisor();
    const wait = deps.firstDiscoveryWaitMs ?? FIRST_DISCOVERY_WAIT_MS;
    await Promise.all(
      fresh.map(async (server) => {
        const handle = await start(mcp, server).catch(() => undefined);
        if (!handle) return;
        const status = await handle.waitReady(wait);
        if (status === "ready") return;
        const reason =
          status === "quarantined"
            ? (handle.reason ?? "quarantined")
            : `no tool list within ${wait / 1000} s of a one-shot ask (discovery attempt ${handle.attempts || 1}/${handle.maxAttempts})`;
        deps.log.warn(`[mcp.servers.${server.configName}] left out of this ask: ${reason}`);
        memory.writeState(server, { state: "unreachable", role: "oneshot", reason });
      }),
    );
  };

  return {
    configured: (config: Config) => Object.keys(config.mcp?.servers ?? {}).length > 0,

    async forTurn(config: Config): Promise<() => readonly AnyTool[]> {
      const servers = runnable(config);
      if (!servers.length && !launched.size) return () => [];
      if (deps.role === "daemon") await sync(servers);
      else await prepareOneShot(servers);
      return () => toolsOf(servers);
    },

    startServers: async (config: Config) => {
      const servers = runnable(config);
      if (servers.length) await sync(servers);
    },

    report(config: Config): OutboundStatus[] {
      return outboundServers(config).map((server) =>
        statusOf(server, supervisor?.get(handleName(server)), memory.state(server)),
      );
    },

    settled: async () => {
      await syncing;
      await Promise.all((supervisor?.all() ?? []).filter((h) => h.plugin.startsWith("mcp:")).map((h) => h.ready()));
    },
  };
}
