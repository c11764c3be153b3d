import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { defineError } from "../../error.ts";
import { VERSION } from "../../version.ts";
import { type ProcessSpec, ProcessTransport } from "./process-transport.ts";

export const McpDiscoveryFailed = defineError<{ plugin: string; stderr?: string }>("mcp_discovery_failed");

/** A bound on tools/list pages, so a server that keeps returning cursors cannot hold discovery forever. */
const MAX_LIST_PAGES = 20;

export type DiscoveredTool = { name: string; description: string; inputSchema: object };

/** One running server with its tool list: the unit the supervisor replaces on a crash or a restart. */
export type McpSession = { client: Client; transport: ProcessTransport; tools: DiscoveredTool[] };

/**
 * Spawns the server and runs discovery (initialize, then tools/list) within one deadline. On any failure the
 * process group is torn down before the error is thrown, so a failed attempt leaves nothing running.
 */
export async function connectOnce(opts: {
  plugin: string;
  spec: ProcessSpec;
  timeoutMs: number;
  onSpawn?: (transport: ProcessTransport) => void;
  /** stderr lines and protocol errors, for the debug log. */
  onDiagnostic?: (line: string) => void;
}): Promise<McpSession> {
  const transport = new ProcessTransport(opts.spec, opts.onDiagnostic);
  const client = new Client({ name: "fermix", version: VERSION }, { capabilities: {} });
  // Protocol noise (a stray non-JSON line on stdout) is worth a log line, not a failed session.
  client.onerror = (err) => opts.onDiagnostic?.(`protocol: ${err.message}`);
  const deadline = new AbortController();
  const timer = setTimeout(() => deadline.abort(new Error(`no answer within ${opts.timeoutMs} ms`)), opts.timeoutMs);
  const options = { signal: deadline.signal, timeout: opts.timeoutMs };
  try {
    const connected = client.connect(transport, options);
    opts.onSpawn?.(transport);
    await connected;
    const tools: DiscoveredTool[] = [];
    let cursor: string | undefined;
    for (let page = 0; page < MAX_LIST_PAGES; page++) {
      const listed = await client.listTools(cursor ? { cursor } : undefined, options);
      for (const t of listed.tools) {
        tools.push({
          name: t.name,
          description: t.description ?? "",
          inputSchema: t.inputSchema ?? { type: "object" },
        });
      }
      cursor = listed.nextCursor;
      if (!cursor) break;
    }
    return { client, transport, tools };
  } catch (err) {
    await transport.kill();
    const stderr = transport.stderr;
    const why = err instanceof Error ? err.message : String(err);
    throw McpDiscoveryFailed(
      `${opts.plugin}: discovery failed: ${why}${stderr ? ` (stderr: ${stderr.slice(-300)})` : ""}`,
      { plugin: opts.plugin, ...(stderr ? { stderr } : {}) },
      { cause: err },
    );
  } finally {
    clearTimeout(timer);
  }
}
