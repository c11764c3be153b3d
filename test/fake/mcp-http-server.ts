import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { WebStandardStreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js";
import { z } from "zod";

/**
 * A streamable-HTTP MCP server on 127.0.0.1, built on the official SDK (McpServer + the web-standard transport),
 * one session per client. Tools: `echo`, `whoami` (the Authorization header it was reached with, masked to its
 * length and prefix), and `add_tool`, which registers a tool at run time (the SDK then sends
 * notifications/tools/list_changed on the session's event stream).
 */
export async function startFakeMcpHttpServer(
  opts: {
    path?: string;
    /**
     * Only this bearer is let in; any other is refused with 401 and an OAuth `invalid_token` body that, as careless
     * servers do, quotes the token it refused.
     */
    bearer?: string;
  } = {},
) {
  const path = opts.path ?? "/mcp";
  const sessions = new Map<string, WebStandardStreamableHTTPServerTransport>();
  const seenAuth: string[] = [];
  let lastAuth = "";

  const newSession = async () => {
    const server = new McpServer(
      { name: "fake-http", version: "1.0.0" },
      { capabilities: { tools: { listChanged: true } } },
    );
    server.registerTool(
      "echo",
      { description: "Echo a message.", inputSchema: { message: z.string() } },
      async ({ message }) => ({
        content: [{ type: "text", text: `http echo: ${message}` }],
      }),
    );
    server.registerTool("whoami", { description: "The Authorization header of the request." }, async () => ({
      content: [{ type: "text", text: lastAuth ? `auth ${lastAuth.slice(0, 7)}… (${lastAuth.length})` : "no auth" }],
    }));
    server.registerTool(
      "add_tool",
      { description: "Add a tool named `name`.", inputSchema: { name: z.string() } },
      async ({ name }) => {
        server.registerTool(name, { description: "Added at run time." }, async () => ({
          content: [{ type: "text", text: `${name} ran` }],
        }));
        return { content: [{ type: "text", text: `added ${name}` }] };
      },
    );
    const transport = new WebStandardStreamableHTTPServerTransport({
      sessionIdGenerator: () => crypto.randomUUID(),
      onsessioninitialized: (id) => {
        sessions.set(id, transport);
      },
    });
    await server.connect(transport);
    return transport;
  };

  const server = Bun.serve({
    hostname: "127.0.0.1",
    port: 0,
    idleTimeout: 0,
    async fetch(request) {
      const url = new URL(request.url);
      if (url.pathname !== path) return new Response("not found", { status: 404 });
      lastAuth = request.headers.get("authorization") ?? "";
      seenAuth.push(lastAuth);
      if (opts.bearer !== undefined && lastAuth !== `Bearer ${opts.bearer}`) {
        const given = lastAuth.replace(/^Bearer\s+/i, "");
        return Response.json(
          { error: "invalid_token", error_description: `the token ${given} is not valid for this server` },
          { status: 401, headers: { "www-authenticate": 'Bearer error="invalid_token"' } },
        );
      }
      const id = request.headers.get("mcp-session-id");
      const transport = id ? sessions.get(id) : await newSession();
      if (!transport)
        return Response.json(
          { jsonrpc: "2.0", error: { code: -32001, message: "Session not found" }, id: null },
          { status: 404 },
        );
      return transport.handleRequest(request);
    },
  });
  return {
    url: `http://127.0.0.1:${server.port}${path}`,
    port: server.port,
    seenAuth,
    sessions: () => sessions.size,
    close: async () => {
      for (const t of sessions.values()) await t.close().catch(() => {});
      await server.stop(true);
    },
  };
}
