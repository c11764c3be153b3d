import { defineError } from "../../error.ts";
import type { Log } from "../../observability/log.ts";
import type { McpPlugin } from "./launch.ts";
import type { McpTool } from "./mcp-tool.ts";
import { type HandleOptions, type McpServerHandle, startServer } from "./server-handle.ts";
import { type McpSource, pluginSource } from "./source.ts";

export type { McpPlugin } from "./launch.ts";
export type { McpTool } from "./mcp-tool.ts";
export type { McpServerHandle, McpStatus } from "./server-handle.ts";
export type { McpSource } from "./source.ts";
export type { McpCallResult } from "./tool-result.ts";

export type McpSupervisorDeps = {
  now?: () => number;
  /** The backoff wait between discovery attempts and reconnects; tests pass one that records and returns at once. */
  sleep?: (ms: number) => Promise<void>;
  /** The backoff's jitter source (tests pass a constant to read the schedule exactly). */
  random?: () => number;
  log?: Log;
  /** The deadline for one attempt's initialize + tools/list. */
  discoveryTimeoutMs?: number;
  /** Discovery attempts before a quarantine. */
  maxAttempts?: number;
  callTimeoutMs?: number;
  maxReconnects?: number;
  /** Told of every status or tool-list change of any server (see HandleOptions.onChange). */
  onChange?: (handle: McpServerHandle) => void;
  /** Told of every successful discovery, with the plugin's tools. */
  onDiscovered?: (plugin: McpPlugin, tools: McpTool[]) => void;
};

export type McpSupervisor = {
  /**
   * Starts a plugin's server in the background and resolves with its handle as soon as the process is being
   * launched — never after discovery (`handle.ready()` waits for that). A plugin already running (or
   * quarantined) is stopped first and started fresh: this is what enable, disable-then-enable and restart do.
   */
  start(plugin: McpPlugin | McpSource): Promise<McpServerHandle>;
  /** Also tells `listener` of every status or tool-list change (besides deps.onChange); returns the unsubscribe. */
  watch(listener: (handle: McpServerHandle) => void): () => void;
  get(name: string): McpServerHandle | undefined;
  /** Every server handle this supervisor holds now. */
  all(): McpServerHandle[];
  /** Stops one plugin's server, if it has one. */
  stop(name: string): Promise<void>;
  stopAll(): Promise<void>;
};

/** A start asked for after stopAll: the process is shutting down. */
export const SupervisorClosed = defineError<{ plugin: string }>("plugin_servers_closed");

/**
 * The reference implementation's schedule: 5 attempts, 500 ms × 2^(n−1) between them (500, 1000, 2000, 4000), now
 * by the shared rule (net/backoff.ts: each wait drawn up to 20 % below its ceiling). Reconnects after a crash wait
 * the same way, growing to DISCOVERY_BACKOFF_MAX_MS, until `maxReconnects` in a row quarantine the server.
 */
export const DISCOVERY_ATTEMPTS = 5;
export const DISCOVERY_BACKOFF_MS = 500;
export const DISCOVERY_BACKOFF_MAX_MS = 30_000;
/**
 * One attempt's deadline. 10 s covers a cold `npx`/`uvx` start on a slow disk, and keeps a server that hangs
 * quarantined within about a minute (5 × 10 s + 7.5 s of backoff) instead of the reference's two and a half.
 */
export const DISCOVERY_TIMEOUT_MS = 10_000;

const silent: Log = { debug() {}, info() {}, warn() {}, error() {}, withTag: () => silent };

/**
 * Supervises the local processes of mcp-rail plugins: spawn, discover tools, retry with backoff, quarantine,
 * reconnect after a crash, and tear down whole process trees.
 *
 * @example
 * const mcp = createMcpSupervisor({ log });
 * const obsidian = await mcp.start({ name: "obsidian", dir, manifest, configValues: { VAULT_PATH }, env: process.env });
 * if ((await obsidian.ready()) === "ready") for (const t of obsidian.tools()) register(t.name, t.inputSchema);
 */
export function createMcpSupervisor(deps: McpSupervisorDeps = {}): McpSupervisor {
  const options: HandleOptions = {
    now: deps.now ?? Date.now,
    sleep: deps.sleep ?? ((ms) => new Promise((resolve) => setTimeout(resolve, ms))),
    log: (deps.log ?? silent).withTag("mcp"),
    discoveryTimeoutMs: deps.discoveryTimeoutMs ?? DISCOVERY_TIMEOUT_MS,
    callTimeoutMs: deps.callTimeoutMs ?? 120_000,
    maxAttempts: deps.maxAttempts ?? DISCOVERY_ATTEMPTS,
    backoffMs: DISCOVERY_BACKOFF_MS,
    backoffMaxMs: DISCOVERY_BACKOFF_MAX_MS,
    ...(deps.random ? { random: deps.random } : {}),
    maxReconnects: deps.maxReconnects ?? 5,
    stableAfterMs: 60_000,
    onChange: (handle) => {
      deps.onChange?.(handle);
      for (const listener of listeners) listener(handle);
    },
  };
  const listeners = new Set<(handle: McpServerHandle) => void>();
  const handles = new Map<string, McpServerHandle>();
  // Set by stopAll: a start queued behind it (a reload racing a shutdown) must not launch a server nobody stops.
  let closed = false;
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
        if (closed) throw SupervisorClosed(`${plugin.name}: plugin servers are shutting down`, { plugin: plugin.name });
        // A plugin (it has a manifest) or an owner's [mcp.servers] entry, which brings its own way to connect.
        const source = "manifest" in plugin ? pluginSource(plugin) : plugin;
        const handle = startServer(source, {
          ...options,
          onDiscovered: (tools) => {
            if ("manifest" in plugin) deps.onDiscovered?.(plugin, tools);
            source.onDiscovered?.(tools);
          },
        });
        handles.set(plugin.name, handle);
        return handle;
      }),
    watch: (listener) => {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
    get: (name) => handles.get(name),
    all: () => [...handles.values()],
    stop: (name) => serial(name, () => stopOne(name)),
    stopAll: async () => {
      closed = true;
      await Promise.all(
        [...new Set([...handles.keys(), ...queues.keys()])].map((name) => serial(name, () => stopOne(name))),
      );
    },
  };
}
