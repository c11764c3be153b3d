import { createHash, timingSafeEqual } from "node:crypto";
import { WebStandardStreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js";
import type { App } from "../../app-contract.ts";
import { createDaemonClient } from "../../protocol/client.ts";
import { createAppBackend } from "./app-backend.ts";
import { createInboundServer } from "./mcp-server.ts";
import { inboundSettings, MCP_INBOUND_TOKEN_SLOT } from "./settings.ts";

/** What the web listener hands a request on the [mcp.inbound.http] path to, instead of its page gates. */
export type InboundHttp = { path: string; handle(request: Request, port: number): Promise<Response> };

const CHALLENGE = 'Bearer realm="fermix", error="invalid_token"';

/**
 * Streamable HTTP on the web listener (127.0.0.1 only; the listener has already checked Host against DNS rebinding).
 * A client is not a browser with a session cookie, so the cookie and form-token gates do not apply; instead every
 * request carries `Authorization: Bearer <[mcp.inbound.http] auth_token>`, compared in constant time, and anything a
 * browser sent from another origin is refused whatever it carries. Stateless: each POST gets its own server and
 * transport, so nothing is held between requests.
 * Undefined unless [mcp.inbound] enabled = true with transport = "streamable_http".
 */
export function createInboundHttp(app: App): InboundHttp | undefined {
  const settings = inboundSettings(app.config);
  if (!settings.enabled || settings.transport !== "streamable_http" || !settings.http.authToken) return undefined;
  const log = app.log.withTag("mcp");
  let expected: Buffer | undefined;
  let unavailable: string | undefined;
  try {
    expected = digest(app.toolEnvironment().resolveSecret(settings.http.authToken, MCP_INBOUND_TOKEN_SLOT));
  } catch (err) {
    // Fail closed: without the token nobody gets in, and the log says which key to fix (never a value).
    unavailable = `[mcp.inbound.http] auth_token could not be read: ${(err as Error).message}`;
    log.error(`inbound MCP over HTTP refuses every request: ${unavailable}`);
  }
  // ask goes through the daemon's own socket, like `fermix ask`: the daemon counts it among its running turns, so a
  // stop cancels it like any other.
  const daemon = createDaemonClient(app.paths.socket);
  const backend = createAppBackend(app, settings, (request, opts) => daemon.ask(request, opts));
  log.info(`inbound MCP server "${settings.serverName}" on the web listener at ${settings.http.path}`);

  return {
    path: settings.http.path,
    async handle(request, port) {
      if (!originAcceptable(request.headers, port)) return plain(403, "cross-origin request refused\n");
      if (!expected) return plain(503, `${unavailable}\n`);
      const given = bearer(request.headers.get("authorization"));
      if (given === undefined || !timingSafeEqual(digest(given), expected)) {
        return plain(401, "a valid bearer token is required ([mcp.inbound.http] auth_token)\n", {
          "www-authenticate": CHALLENGE,
        });
      }
      // Stateless: no stream to resume or session to end.
      if (request.method !== "POST") return plain(405, "method not allowed\n", { allow: "POST" });
      const transport = new WebStandardStreamableHTTPServerTransport({ sessionIdGenerator: undefined });
      const server = createInboundServer(settings, backend);
      server.onerror = (err) => log.warn(`inbound http: ${err.message}`);
      await server.connect(transport);
      // A client that goes away cancels its calls (an ask's turn aborts and saves nothing).
      request.signal.addEventListener("abort", () => void server.close().catch(() => undefined), { once: true });
      return transport.handleRequest(request);
    },
  };
}

/** Any Origin must be ours (a page on the setup site); a browser elsewhere never reaches a tool, bearer or not. */
function originAcceptable(headers: Headers, port: number): boolean {
  const site = headers.get("sec-fetch-site");
  if (site !== null && site !== "same-origin" && site !== "none") return false;
  const origin = headers.get("origin");
  return origin === null || origin === `http://127.0.0.1:${port}` || origin === `http://localhost:${port}`;
}

function bearer(header: string | null): string | undefined {
  const match = /^Bearer\s+(\S+)\s*$/i.exec(header ?? "");
  return match?.[1];
}

/** Fixed-length digests, so the comparison's time says nothing about the token's length either. */
function digest(text: string): Buffer {
  return createHash("sha256").update(text).digest();
}

function plain(status: number, text: string, headers: Record<string, string> = {}): Response {
  return new Response(text, { status, headers: { "content-type": "text/plain; charset=utf-8", ...headers } });
}
