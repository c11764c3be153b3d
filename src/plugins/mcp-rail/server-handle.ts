import type { Log } from "../../observability/log.ts";
import { connectOnce, type McpSession } from "./connect.ts";
import { type McpPlugin, McpRuntimeMissing, processSpec } from "./launch.ts";
import type { ProcessTransport } from "./process-transport.ts";
import { toolNames } from "./tool-names.ts";
import { type McpCallResult, toCallResult } from "./tool-result.ts";

/** `stopped` is a handle after stop(); a later `start` of the plugin makes a new handle. */
export type McpStatus = "ready" | "starting" | "quarantined" | "stopped";

export type McpTool = {
  /** `<plugin>_<sanitised MCP name>`, `[a-z0-9_]`, at most 64 bytes, unique within the plugin. */
  name: string;
  /** The name the server knows the tool by. */
  mcpName: string;
  description: string;
  inputSchema: object;
};

export type McpServerHandle = {
  readonly plugin: string;
  readonly status: McpStatus;
  /** Discovery attempts in the latest (re)connect: 1 for a clean start, 5 before a quarantine. */
  readonly attempts: number;
  /** Why the server is quarantined, for doctor and the prompt's status marker. */
  readonly reason?: string;
  tools(): McpTool[];
  /** Waits out a start or reconnect in progress and returns the status it ended in. */
  ready(): Promise<McpStatus>;
  call(name: string, args: Record<string, unknown>, signal?: AbortSignal): Promise<McpCallResult>;
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
  backoffMs: number;
  /** Reconnects allowed after crashes before the server is quarantined… */
  maxReconnects: number;
  /** …counted afresh once a session has stayed up this long. */
  stableAfterMs: number;
};

/** Starts a plugin's server and resolves once it is ready or quarantined. */
export async function startServer(plugin: McpPlugin, opts: HandleOptions): Promise<McpServerHandle> {
  const log = opts.log.withTag(plugin.name);
  let status: McpStatus = "starting";
  let attempts = 0;
  let reason: string | undefined;
  let session: McpSession | undefined;
  let tools: McpTool[] = [];
  let inFlight: ProcessTransport | undefined;
  let settled: Promise<void> = Promise.resolve();
  let stopping = false;
  let reconnects = 0;
  let upSince = 0;
  let wake: () => void = () => {};
  const stopped = new Promise<void>((resolve) => {
    wake = resolve;
  });

  const quarantine = (why: string) => {
    status = "quarantined";
    reason = why;
    tools = [];
    log.warn(`quarantined: ${why}`);
  };

  /** Discovery with bounded retries: `maxAttempts` in all, backoff × 2^(n−1) between them. */
  const discover = async (): Promise<void> => {
    status = "starting";
    attempts = 0;
    let spec: ReturnType<typeof processSpec>;
    try {
      spec = processSpec(plugin);
    } catch (err) {
      // A missing runtime is not transient: retrying would only delay the status the operator needs.
      if (McpRuntimeMissing.is(err)) return quarantine(err.message);
      throw err;
    }
    let lastError = "";
    for (let n = 1; n <= opts.maxAttempts && !stopping; n++) {
      attempts = n;
      try {
        const next = await connectOnce({
          plugin: plugin.name,
          spec,
          timeoutMs: opts.discoveryTimeoutMs,
          onSpawn: (t) => {
            inFlight = t;
          },
          onDiagnostic: (line) => log.debug(line),
        });
        inFlight = undefined;
        if (stopping) {
          await next.transport.kill();
          return;
        }
        return adopt(next);
      } catch (err) {
        inFlight = undefined;
        lastError = err instanceof Error ? err.message : String(err);
        log.warn(`attempt ${n}/${opts.maxAttempts}: ${lastError}`);
      }
      if (n < opts.maxAttempts && !stopping) await Promise.race([opts.sleep(opts.backoffMs * 2 ** (n - 1)), stopped]);
    }
    if (!stopping) quarantine(`no answer to discovery after ${attempts} attempts: ${lastError}`);
  };

  const adopt = (next: McpSession) => {
    session = next;
    const names = toolNames(
      plugin.name,
      next.tools.map((t) => t.name),
    );
    tools = next.tools.map((t, i) => ({ ...t, name: names[i]!, mcpName: t.name }));
    status = "ready";
    reason = undefined;
    upSince = opts.now();
    log.info(`ready with ${tools.length} tools (attempt ${attempts})`);
    // The process exiting (or its pipes breaking) after a good start is a transport blip: reconnect, bounded.
    next.client.onclose = () => {
      if (stopping || session !== next) return;
      session = undefined;
      tools = [];
      settled = reconnect(next);
    };
  };

  const reconnect = async (dead: McpSession) => {
    status = "starting";
    await dead.transport.kill(); // helpers the crashed server left in its group
    if (opts.now() - upSince >= opts.stableAfterMs) reconnects = 0;
    reconnects++;
    if (reconnects > opts.maxReconnects) {
      quarantine(`exited ${reconnects} times in a row; not restarting`);
      return;
    }
    log.warn(`server exited; reconnecting (${reconnects}/${opts.maxReconnects})`);
    await discover();
  };

  const failure = (text: string): McpCallResult => ({ content: text, isError: true });

  const handle: McpServerHandle = {
    plugin: plugin.name,
    get status() {
      return status;
    },
    get attempts() {
      return attempts;
    },
    get reason() {
      return reason;
    },
    tools: () => tools.map((t) => ({ ...t })),
    ready: () => settled.then(() => status),
    async call(name, args, signal) {
      if (status === "starting") await settled;
      const current = session;
      if (status !== "ready" || !current) {
        return failure(`${plugin.name} is ${status}${reason ? `: ${reason}` : ""}; it cannot run ${name}`);
      }
      const tool = tools.find((t) => t.name === name);
      if (!tool) return failure(`${plugin.name} has no tool ${name}`);
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
      await Promise.all([inFlight?.kill(), current?.transport.kill()]);
      await settled;
    },
  };

  settled = discover();
  await settled;
  return handle;
}
