import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { NetFailed } from "../../net/net-error.ts";
import type { McpSession } from "../../plugins/mcp-rail/connect.ts";
import { connectTransport, formatSeconds } from "../../plugins/mcp-rail/connect.ts";
import type { ConnectHooks } from "../../plugins/mcp-rail/source.ts";
import type { StreamingFetch } from "./owner-fetch.ts";

/** How long ending a session may take: the DELETE that tells the server, then the local close. */
const TERMINATE_MS = 2_000;

/** The SDK's streamable-HTTP client with the teardown the supervisor expects of every session. */
class HttpTransport extends StreamableHTTPClientTransport {
  private ended?: Promise<void>;

  /**
   * A server that no longer accepts connections ends the session: closing it is what makes the supervisor
   * reconnect (bounded, then quarantine), as a local server's exit does. An HTTP error answer does not.
   */
  override async send(...args: Parameters<StreamableHTTPClientTransport["send"]>): Promise<void> {
    try {
      return await super.send(...args);
    } catch (err) {
      if (NetFailed.is(err)) void this.close().catch(() => {});
      throw err;
    }
  }

  kill(): Promise<void> {
    this.ended ??= (async () => {
      // A polite DELETE so the server frees the session; a server that is gone or slow does not hold us up.
      await Promise.race([
        this.terminateSession().catch(() => {}),
        new Promise((resolve) => setTimeout(resolve, TERMINATE_MS).unref?.()),
      ]);
      await this.close().catch(() => {});
    })();
    return this.ended;
  }
}

/** One discovery attempt against an owner's streamable-HTTP MCP server. */
export async function connectHttp(opts: {
  label: string;
  url: string;
  headers: Record<string, string>;
  fetch: StreamingFetch;
  hooks: ConnectHooks;
}): Promise<McpSession> {
  const transport = new HttpTransport(new URL(opts.url), {
    fetch: opts.fetch,
    requestInit: { headers: opts.headers },
    // The standalone event stream reconnects a few times at most; the supervisor owns the longer story.
    reconnectionOptions: {
      initialReconnectionDelay: 1000,
      maxReconnectionDelay: 10_000,
      reconnectionDelayGrowFactor: 2,
      maxRetries: 3,
    },
  });
  return connectTransport({
    label: opts.label,
    transport,
    timeoutMs: opts.hooks.timeoutMs,
    onConnecting: () => opts.hooks.onSpawn(transport),
    onDiagnostic: opts.hooks.onDiagnostic,
    onToolsChanged: opts.hooks.onToolsChanged,
    describeFailure: (err) => {
      const why = err instanceof Error ? err.message : String(err);
      if (/no answer within|timed out|timeout/i.test(why)) {
        return `no answer to discovery from ${opts.url} within ${formatSeconds(opts.hooks.timeoutMs)}`;
      }
      return `could not reach ${opts.url}: ${why}`;
    },
  });
}
