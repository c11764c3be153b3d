import type { Log } from "../../observability/log.ts";
import type { McpPlugin } from "./launch.ts";
import { type HandleOptions, type McpServerHandle, startServer } from "./server-handle.ts";

export type { McpPlugin } from "./launch.ts";
export type { McpServerHandle, McpStatus, McpTool } from "./server-handle.ts";
export type { McpCallResult } from "./tool-result.ts";

export type McpSupervisorDeps = {
  now?: () => number;
  /** The backoff wait between discovery attempts; tests pass one that records and returns at once. */
  sleep?: (ms: number) => Promise<void>;
  log?: Log;
  /** The deadline for one attempt's initialize + tools/list. */
  discoveryTimeoutMs?: number;
  callTimeoutMs?: number;
  maxReconnects?: number;
};

export type McpSupervisor = {
  /**
   * Starts a plugin's server and resolves once it is ready or quarantined. A plugin already running (or
   * quarantined) is stopped first and started fresh: this is what enable, disable-then-enable and restart do.
   */
  start(plugin: McpPlugin): Promise<McpServerHandle>;
  get(name: string): McpServerHandle | undefined;
  /** Stops one plugin's server, if it has one. */
  stop(name: string): Promise<void>;
  stopAll(): Promise<void>;
};

/** The reference implementation's schedule: 5 attempts, 500 ms × 2^(n−1) between them (500, 1000, 2000, 4000). */
export const DISCOVERY_ATTEMPTS = 5;
export const DISCOVERY_BACKOFF_MS = 500;

const silent: Log = { debug() {}, info() {}, warn() {}, error() {}, withTag: () => silent };

/**
 * Supervises the local processes of mcp-rail plugins: spawn, discover tools, retry with backoff, quarantine,
 * reconnect after a crash, and tear down whole process trees.
 *
 * @example
 * const mcp = createMcpSupervisor({ log });
 * const obsidian = await mcp.start({ name: "obsidian", dir, manifest, configValues: { VAULT_PATH }, env: process.env });
 * if (obsidian.status === "ready") for (const t of obsidian.tools()) register(t.name, t.inputSchema);
 */
export function createMcpSupervisor(deps: McpSupervisorDeps = {}): McpSupervisor {
  const options: HandleOptions = {
    now: deps.now ?? Date.now,
    sleep: deps.sleep ?? ((ms) => new Promise((resolve) => setTimeout(resolve, ms))),
    log: (deps.log ?? silent).withTag("mcp"),
    discoveryTimeoutMs: deps.discoveryTimeoutMs ?? 30_000,
    callTimeoutMs: deps.callTimeoutMs ?? 120_000,
    maxAttempts: DISCOVERY_ATTEMPTS,
    backoffMs: DISCOVERY_BACKOFF_MS,
    maxReconnects: deps.maxReconnects ?? 5,
    stableAfterMs: 60_000,
  };
  const handles = new Map<string, McpServerHandle>();
  // One start/stop at a time per plugin, so a restart never races the start it replaces.
  const queues = new Map<string, Promise<unknown>>();

  const serial = <T>(name: string, work: () => Promise<T>): Promise<T> => {
    const run = (queues.get(name) ?? Promise.resolve()).then(work, work);
    queues.set(
      name,
      run.catch(() => {}),
    );
    return run;
  };

  const stopOne = async (name: string) => {
    const handle = handles.get(name);
    handles.delete(name);
    await handle?.stop();
  };

  return {
    start: (plugin) =>
      serial(plugin.name, async () => {
        await stopOne(plugin.name);
        const handle = await startServer(plugin, options);
        handles.set(plugin.name, handle);
        return handle;
      }),
    get: (name) => handles.get(name),
    stop: (name) => serial(name, () => stopOne(name)),
    stopAll: async () => {
      await Promise.all(
        [...new Set([...handles.keys(), ...queues.keys()])].map((name) => serial(name, () => stopOne(name))),
      );
    },
  };
}
