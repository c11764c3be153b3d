import { createBackoff } from "../../net/backoff.ts";
import type { Log } from "../../observability/log.ts";
import type { DiscoveredTool, McpSession, SessionTransport } from "./connect.ts";
import { McpRuntimeMissing } from "./launch.ts";
import type { McpTool } from "./mcp-tool.ts";
import type { McpSource } from "./source.ts";
import { type McpCallResult, toCallResult } from "./tool-result.ts";

/** `stopped` is a handle after stop(); a later `start` of the plugin makes a new handle. */
export type McpStatus = "ready" | "starting" | "quarantined" | "stopped";

export type McpServerHandle = {
  readonly plugin: string;
  readonly status: McpStatus;
  /** Discovery attempts in the latest (re)connect so far: 1 for a clean start, `maxAttempts` before a quarantine. */
  readonly attempts: number;
  readonly maxAttempts: number;
  /** Why the server is quarantined (its exit code and last stderr lines, or the deadline it missed). */
  readonly reason?: string;
  tools(): McpTool[];
  /** Waits out a start or reconnect in progress and returns the status it ended in. */
  ready(): Promise<McpStatus>;
  /** Like ready(), but gives up after `ms` and returns the status then (possibly still `starting`). */
  waitReady(ms: number, signal?: AbortSignal): Promise<McpStatus>;
  /**
   * Calls a tool. A server that is still starting is waited for at most `waitMs` (default: not at all); past
   * that, or when it is quarantined, the result is a sentence saying so that the model can act on.
   */
  call(
    name: string,
    args: Record<string, unknown>,
    signal?: AbortSignal,
    opts?: { waitMs?: number },
  ): Promise<McpCallResult>;
  /** Tears down the whole process tree; resolves once the server has exited. */
  stop(): Promise<void>;
};

export type HandleOptions = {
  now: () => number;
  sleep: (ms: number) => Promise<void>;
  log: Log;
  discoveryTimeoutMs: number;
  callTimeoutMs: number;
  maxAttempts: number;
  /** The first wait, between discovery attempts and before a reconnect; each later one doubles, with jitter… */
  backoffMs: number;
  /** …up to this (the shared rule, net/backoff.ts). */
  backoffMaxMs: number;
  /** The jitter's source (tests pass a constant). */
  random?: () => number;
  /** Reconnects allowed after crashes before the server is quarantined… */
  maxReconnects: number;
  /** …counted afresh once a session has stayed up this long. */
  stableAfterMs: number;
  /** Every change of status or of the tool list, so whoever offers the tools can recompute once, then. */
  onChange?: (handle: McpServerHandle) => void;
  /** A successful discovery's tools, to remember for the next start (a one-shot ask offers them unstarted). */
  onDiscovered?: (tools: McpTool[]) => void;
};

/**
 * Starts a plugin's (or an owner's `[mcp.servers]`) server in the background and returns its handle at once:
 * nothing waits for discovery unless it asks to (`ready`, `waitReady`, or a call with `waitMs`).
 */
export function startServer(source: McpSource, opts: HandleOptions): McpServerHandle {
  const plugin = source;
  const log = opts.log.withTag(plugin.name);
  let status: McpStatus = "starting";
  let attempts = 0;
  let reason: string | undefined;
  let session: McpSession | undefined;
  let tools: McpTool[] = [];
  let inFlight: SessionTransport | undefined;
  let settled: Promise<void> = Promise.resolve();
  let stopping = false;
  let reconnects = 0;
  let upSince = 0;
  const policy = { initialMs: opts.backoffMs, maxMs: opts.backoffMaxMs };
  // Within one (re)connect's discovery attempts; a new (re)connect starts it afresh.
  const attemptWaits = createBackoff(policy, opts.random);
  // Between reconnects after crashes; a session that stayed up `stableAfterMs` starts it afresh.
  const reconnectWaits = createBackoff(policy, opts.random);
  let wake: () => void = () => {};
  const stopped = new Promise<void>((resolve) => {
    wake = resolve;
  });
  // Resolved and replaced on every change, so waiters can race it against their own deadline.
  let changed = Promise.withResolvers<void>();

  const notify = () => {
    changed.resolve();
    changed = Promise.withResolvers<void>();
    try {
      opts.onChange?.(handle);
    } catch (err) {
      log.warn(`a status listener failed: ${(err as Error).message}`);
    }
  };

  const quarantine = (why: string) => {
    status = "quarantined";
    reason = why;
    tools = [];
    log.warn(`quarantined: ${why}`);
    notify();
  };

  /** Discovery with bounded retries: `maxAttempts` in all, the shared backoff rule between them. */
  const discover = async (): Promise<void> => {
    status = "starting";
    attempts = 0;
    attemptWaits.reset();
    let lastError = "";
    for (let n = 1; n <= opts.maxAttempts && !stopping; n++) {
      attempts = n;
      notify();
      try {
        const next = await source.connect({
          timeoutMs: opts.discoveryTimeoutMs,
          onSpawn: (t) => {
            inFlight = t;
          },
          onDiagnostic: (line) => log.debug(line),
          onToolsChanged: () => void relist(),
        });
        inFlight = undefined;
        if (stopping) {
          await next.transport.kill();
          return;
        }
        return adopt(next);
      } catch (err) {
        inFlight = undefined;
        // A missing runtime is not transient: retrying would only delay the status the operator needs.
        if (McpRuntimeMissing.is(err)) {
          attempts = 0; // nothing was launched: there was nothing to launch
          return quarantine(err.message);
        }
        lastError = err instanceof Error ? err.message.replace(`${plugin.name}: `, "") : String(err);
        log.warn(`attempt ${n}/${opts.maxAttempts}: ${lastError}`);
      }
      if (n < opts.maxAttempts && !stopping) await Promise.race([opts.sleep(attemptWaits.next()), stopped]);
    }
    if (!stopping) quarantine(`${attempts} discovery attempts failed; the last: ${lastError}`);
  };

  const named = (discovered: DiscoveredTool[]): McpTool[] => {
    const names = source.toolNames(discovered.map((t) => t.name));
    return discovered.map((t, i) => ({ ...t, name: names[i]!, mcpName: t.name }));
  };

  const adopt = (next: McpSession) => {
    session = next;
    tools = named(next.tools);
    status = "ready";
    reason = undefined;
    upSince = opts.now();
    log.info(`ready with ${tools.length} tools (attempt ${attempts})`);
    opts.onDiscovered?.(tools);
    notify();
    // The process exiting (or its pipes breaking) after a good start is a transport blip: reconnect, bounded.
    next.client.onclose = () => {
      if (stopping || session !== next) return;
      session = undefined;
      tools = [];
      settled = reconnect(next);
    };
  };

  /** `notifications/tools/list_changed`: the new list replaces the old one, for the next model request on. */
  const relist = async () => {
    const current = session;
    if (!current || stopping) return;
    try {
      const listed = await current.relist(opts.discoveryTimeoutMs);
      if (session !== current) return;
      tools = named(listed);
      log.info(`tool list changed: now ${tools.length} tools`);
      opts.onDiscovered?.(tools);
      notify();
    } catch (err) {
      log.warn(`re-listing tools after a change failed: ${(err as Error).message}`);
    }
  };

  const reconnect = async (dead: McpSession) => {
    status = "starting";
    notify();
    await dead.transport.kill(); // helpers the crashed server left in its group
    if (opts.now() - upSince >= opts.stableAfterMs) {
      reconnects = 0;
      reconnectWaits.reset();
    }
    reconnects++;
    if (reconnects > opts.maxReconnects) {
      const exit = dead.transport.exitStatus;
      const how = exit?.code != null ? ` (last exit code ${exit.code})` : "";
      quarantine(`exited ${reconnects} times in a row${how}; not restarting`);
      return;
    }
    const wait = reconnectWaits.next();
    log.warn(`server exited; reconnecting (${reconnects}/${opts.maxReconnects}) in ${Math.ceil(wait / 100) / 10} s`);
    // A server that dies at once must not be relaunched in a tight loop (a crash storm eats the machine).
    await Promise.race([opts.sleep(wait), stopped]);
    if (stopping) return;
    await discover();
  };

  const failure = (text: string): McpCallResult => ({ content: text, isError: true });

  const waitReady = async (ms: number, signal?: AbortSignal): Promise<McpStatus> => {
    if (status !== "starting" || signal?.aborted) return status;
    // The caller's deadline, or its cancellation, whichever comes first.
    const given = Promise.withResolvers<"given up">();
    const timer = setTimeout(() => given.resolve("given up"), ms);
    const onAbort = () => given.resolve("given up");
    signal?.addEventListener("abort", onAbort, { once: true });
    try {
      while (status === "starting") {
        if ((await Promise.race([changed.promise, stopped, given.promise])) === "given up") break;
      }
    } finally {
      clearTimeout(timer);
      signal?.removeEventListener("abort", onAbort);
    }
    return status;
  };

  const handle: McpServerHandle = {
    plugin: plugin.name,
    get status() {
      return status;
    },
    get attempts() {
      return attempts;
    },
    maxAttempts: opts.maxAttempts,
    get reason() {
      return reason;
    },
    tools: () => tools.map((t) => ({ ...t })),
    ready: async () => {
      while (status === "starting") await Promise.race([settled, changed.promise, stopped]);
      return status;
    },
    waitReady,
    async call(name, args, signal, callOpts = {}) {
      if (status === "starting" && callOpts.waitMs) await waitReady(callOpts.waitMs, signal);
      const current = session;
      if (status === "starting") {
        const where = attempts ? `discovery attempt ${attempts}/${opts.maxAttempts}` : "launching its server";
        return failure(`${plugin.name} is starting (${where}); try ${name} again in a moment.`);
      }
      if (status !== "ready" || !current) {
        return failure(
          status === "quarantined"
            ? `${plugin.name} is quarantined: ${reason}. It cannot run ${name}; the owner can see why with: ${source.doctorCommand}`
            : `${plugin.name} is ${status}; it cannot run ${name}.`,
        );
      }
      const tool = tools.find((t) => t.name === name);
      if (!tool) {
        const known = tools.map((t) => t.name).join(", ");
        return failure(`${plugin.name} has no tool ${name}; its tools are: ${known || "(none)"}.`);
      }
      try {
        const result = await current.client.callTool({ name: tool.mcpName, arguments: args }, undefined, {
          signal,
          timeout: opts.callTimeoutMs,
        });
        return toCallResult(result as Record<string, unknown>);
      } catch (err) {
        // The caller cancelling is not a tool failure to show the model.
        if (signal?.aborted) throw err;
        return failure(`${name} failed: ${err instanceof Error ? err.message : String(err)}`);
      }
    },
    async stop() {
      if (stopping) return settled;
      stopping = true;
      wake();
      const current = session;
      session = undefined;
      tools = [];
      status = "stopped";
      notify();
      await Promise.all([inFlight?.kill(), current?.transport.kill()]);
      await settled;
    },
  };

  settled = discover().catch((err) => quarantine(`could not start: ${(err as Error).message}`));
  return handle;
}
