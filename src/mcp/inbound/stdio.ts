import { createApp } from "../../app.ts";
import { exitOnTerminationSignals } from "../../cli/termination.ts";
import type { Env } from "../../config/env.ts";
import { defineError, FermixError } from "../../error.ts";
import { askLocally } from "../../gateway/local-ask.ts";
import { createDaemonClient, NOT_RUNNING } from "../../protocol/client.ts";
import { createAppBackend } from "./app-backend.ts";
import { createInboundServer, type InboundBackend } from "./mcp-server.ts";
import { inboundSettings } from "./settings.ts";
import { LineTransport, MAX_LINE_BYTES } from "./stdio-transport.ts";

export const InboundDisabled = defineError("mcp_inbound_disabled");

/** How long a signalled server gives its plugin servers (an in-process ask's) to stop before they are killed. */
const SIGNAL_GRACE_MS = 2_000;

/**
 * FERMIX_TEST_MCP_STDIO_MAX_LINE_BYTES lowers the line limit so a test shows an oversized line without feeding
 * 10 MiB; it can only lower it (the transport caps it at MAX_LINE_BYTES).
 */
export function stdioLineLimit(env: Env): number {
  const given = Number(env.FERMIX_TEST_MCP_STDIO_MAX_LINE_BYTES);
  return Number.isSafeInteger(given) && given > 0 ? Math.min(given, MAX_LINE_BYTES) : MAX_LINE_BYTES;
}

/**
 * `fermix mcp serve`: one MCP client on stdin/stdout until it hangs up. stdout is the transport's alone: logs go to
 * fermix.log, and console output is pointed at stderr so no stray line can corrupt the stream. `ask` runs through the
 * daemon when one answers on the socket (checked per ask: it may come and go), else in this process, as
 * `fermix ask` does; built-ins always run here, through the same registry dispatch and sandbox as a turn.
 */
export async function serveStdio(env: Env): Promise<void> {
  console.log = console.error;
  console.info = console.error;
  console.debug = console.error;
  const app = await createApp({ env });
  const settings = inboundSettings(app.config);
  if (!settings.enabled) {
    await app.close();
    throw InboundDisabled(
      `MCP serving is off: set enabled = true under [mcp.inbound] in ${app.paths.config} to let an MCP client use fermix`,
      { file: app.paths.config, key: "mcp.inbound.enabled" },
    );
  }
  if (settings.transport !== "stdio") {
    await app.close();
    throw InboundDisabled(
      `[mcp.inbound] transport is "streamable_http": the daemon serves MCP at ${settings.http.path} on its web port; ` +
        `set transport = "stdio" in ${app.paths.config} to serve it with \`fermix mcp serve\``,
      { file: app.paths.config, key: "mcp.inbound.transport" },
    );
  }
  const daemon = createDaemonClient(app.paths.socket);
  const ask: InboundBackend["ask"] = async (request, opts) => {
    try {
      return await daemon.ask(request, opts);
    } catch (err) {
      if (!(err instanceof FermixError && err.code === NOT_RUNNING)) throw err;
    }
    return askLocally(app, request, opts);
  };
  const server = createInboundServer(settings, createAppBackend(app, settings, ask));
  const transport = new LineTransport({
    input: process.stdin,
    output: process.stdout,
    maxLineBytes: stdioLineLimit(env),
  });
  const log = app.log.withTag("mcp");
  server.onerror = (err) => log.warn(`inbound stdio: ${err.message}`);
  const ended = new Promise<void>((resolve) => {
    server.onclose = resolve;
    process.stdin.once("end", resolve);
    process.stdin.once("close", resolve);
  });
  exitOnTerminationSignals(() => app.close(), SIGNAL_GRACE_MS);
  server.oninitialized = () =>
    log.info(
      `inbound MCP on stdio: ${server.getClientVersion()?.name ?? "a client"} connected to "${settings.serverName}"`,
    );
  await server.connect(transport);
  await ended;
  await server.close().catch(() => undefined);
  // Work that follows a reply (compaction) finishes; plugin servers an ask started stop with us.
  await app.idle();
  await app.close();
}
