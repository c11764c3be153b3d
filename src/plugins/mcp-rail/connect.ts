import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js";
import { defineError } from "../../error.ts";
import { VERSION } from "../../version.ts";
import { type ProcessSpec, ProcessTransport } from "./process-transport.ts";

export const McpDiscoveryFailed = defineError<{ plugin: string; stderr?: string }>("mcp_discovery_failed");

/** A bound on tools/list pages, so a server that keeps returning cursors cannot hold discovery forever. */
const MAX_LIST_PAGES = 20;
/** The stderr lines a failed start keeps as its reason: enough to recognise a stack trace's message. */
const REASON_STDERR_LINES = 5;
/** Servers announce list changes in bursts (one per registered tool); one re-list after a short quiet is enough. */
const LIST_CHANGED_DEBOUNCE_MS = 300;

export type DiscoveredTool = { name: string; description: string; inputSchema: object };

/** What the supervisor needs of a session's transport: a teardown, and how a local server ended. */
export type SessionTransport = {
  /** Ends the session (a local server: its whole process group); resolves once it is over. */
  kill(): Promise<void>;
  readonly exitStatus?: { code: number | null; signal: NodeJS.Signals | null };
};

/** One running server with its tool list: the unit the supervisor replaces on a crash or a restart. */
export type McpSession = {
  client: Client;
  transport: SessionTransport;
  tools: DiscoveredTool[];
  /** Lists the server's tools again (after `notifications/tools/list_changed`). */
  relist(timeoutMs: number): Promise<DiscoveredTool[]>;
};

/**
 * Spawns the server and runs discovery (initialize, then tools/list) within one deadline. On any failure the
 * process group is torn down before the error is thrown, so a failed attempt leaves nothing running. The error
 * says what happened in the owner's terms: the exit code and last stderr lines of a server that died, or the
 * deadline a silent one missed.
 */
export async function connectOnce(opts: {
  plugin: string;
  spec: ProcessSpec;
  timeoutMs: number;
  onSpawn?: (transport: ProcessTransport) => void;
  /** stderr lines and protocol errors, for the debug log. */
  onDiagnostic?: (line: string) => void;
  /** The server said its tool list changed; `relist` gets the new one. */
  onToolsChanged?: () => void;
}): Promise<McpSession> {
  const transport = new ProcessTransport(opts.spec, opts.onDiagnostic);
  return connectTransport({
    label: opts.plugin,
    transport,
    timeoutMs: opts.timeoutMs,
    onConnecting: () => opts.onSpawn?.(transport),
    onDiagnostic: opts.onDiagnostic,
    onToolsChanged: opts.onToolsChanged,
    describeFailure: (err) => failureReason(err, transport, opts.timeoutMs),
    failureData: () => (transport.stderr ? { stderr: transport.stderr } : {}),
  });
}

/**
 * Discovery (initialize, then tools/list) over any transport within one deadline: the stdio one above, or a
 * streamable-HTTP one for an owner's `[mcp.servers]` url. On failure the transport is torn down first.
 */
export async function connectTransport<T extends Transport & SessionTransport>(opts: {
  label: string;
  transport: T;
  timeoutMs: number;
  /** Called once the connect has begun (a process transport has spawned its server by then). */
  onConnecting?: () => void;
  onDiagnostic?: (line: string) => void;
  onToolsChanged?: () => void;
  describeFailure: (err: unknown) => string;
  failureData?: () => { stderr?: string };
}): Promise<McpSession> {
  const { transport } = opts;
  const client = new Client(
    { name: "fermix", version: VERSION },
    {
      capabilities: {},
      // The SDK only installs this when the server advertises tools.listChanged; we re-list ourselves (paged).
      listChanged: opts.onToolsChanged
        ? {
            tools: {
              autoRefresh: false,
              debounceMs: LIST_CHANGED_DEBOUNCE_MS,
              onChanged: () => opts.onToolsChanged?.(),
            },
          }
        : undefined,
    },
  );
  // Protocol noise (a stray non-JSON line on stdout) is worth a log line, not a failed session.
  client.onerror = (err) => opts.onDiagnostic?.(`protocol: ${err.message}`);
  const deadline = new AbortController();
  const timer = setTimeout(() => deadline.abort(new Error(`no answer within ${opts.timeoutMs} ms`)), opts.timeoutMs);
  try {
    const connected = client.connect(transport, { signal: deadline.signal, timeout: opts.timeoutMs });
    opts.onConnecting?.();
    await connected;
    const tools = await listAll(client, { signal: deadline.signal, timeout: opts.timeoutMs });
    return {
      client,
      transport,
      tools,
      relist: (timeoutMs) => listAll(client, { signal: AbortSignal.timeout(timeoutMs), timeout: timeoutMs }),
    };
  } catch (err) {
    await transport.kill();
    throw McpDiscoveryFailed(
      `${opts.label}: ${opts.describeFailure(err)}`,
      { plugin: opts.label, ...opts.failureData?.() },
      { cause: err },
    );
  } finally {
    clearTimeout(timer);
  }
}

async function listAll(client: Client, options: { signal: AbortSignal; timeout: number }): Promise<DiscoveredTool[]> {
  const tools: DiscoveredTool[] = [];
  let cursor: string | undefined;
  for (let page = 0; page < MAX_LIST_PAGES; page++) {
    const listed = await client.listTools(cursor ? { cursor } : undefined, options);
    for (const t of listed.tools) {
      tools.push({ name: t.name, description: t.description ?? "", inputSchema: t.inputSchema ?? { type: "object" } });
    }
    cursor = listed.nextCursor;
    if (!cursor) break;
  }
  return tools;
}

/** "exited with code 1: Error: Cannot find module …" or "no answer to discovery within 10 s". */
function failureReason(err: unknown, transport: ProcessTransport, timeoutMs: number): string {
  const tail = transport.stderr.split("\n").slice(-REASON_STDERR_LINES).join(" | ").slice(-400);
  const stderr = tail ? `; stderr: ${tail}` : "";
  const exit = transport.exitStatus;
  // A server we killed at the deadline also has an exit status (our signal): the deadline is the news then.
  const timedOut = err instanceof Error && /no answer within|timed out|timeout/i.test(err.message);
  if (exit && !timedOut) {
    const how = exit.code !== null ? `exited with code ${exit.code}` : `was killed by ${exit.signal}`;
    return `the server ${how} during discovery${stderr}`;
  }
  if (timedOut) return `no answer to discovery within ${formatSeconds(timeoutMs)}${stderr}`;
  const why = err instanceof Error ? err.message : String(err);
  return `discovery failed: ${why}${stderr}`;
}

export function formatSeconds(ms: number): string {
  return ms >= 1000 && ms % 1000 === 0 ? `${ms / 1000} s` : `${ms} ms`;
}
