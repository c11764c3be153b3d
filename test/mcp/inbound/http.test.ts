import { describe, expect, test } from "bun:test";
import { readdirSync, readFileSync, statSync } from "node:fs";
import { request as httpRequest } from "node:http";
import { join } from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import type { JSONRPCMessage } from "@modelcontextprotocol/sdk/types.js";
import { startFakeOpenAIResponses } from "../../fake/llm.ts";
import { cleanupAfterEach } from "../../fixture/cleanup.ts";
import { runFermix, startFermixDaemon } from "../../fixture/cli.ts";
import { tempHome } from "../../fixture/home.ts";
import { freePort } from "../../gateway/_whatsapp-daemon.ts";

/*
 * Streamable HTTP on the compiled daemon's web listener: the official SDK client with the bearer lists and calls
 * tools; no bearer, a wrong one, a rebound Host or another site's Origin is refused; the token is never logged.
 */

const KEY = "sk-test-mcp-http-0123456789abcdef";
const TOKEN = "mcp-inbound-test-token-5b1d4f607f3a9c2e";
const defer = cleanupAfterEach();

const INITIALIZE = JSON.stringify({
  jsonrpc: "2.0",
  id: 1,
  method: "initialize",
  params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "raw", version: "1" } },
});

async function setup() {
  const h = tempHome();
  const fake = await startFakeOpenAIResponses({ apiKey: KEY });
  defer(() => h[Symbol.asyncDispose]());
  defer(() => fake.close());
  const port = await freePort();
  h.writeConfig(
    [
      "[fermix_web]",
      `port = ${port}`,
      `webhook_port = ${await freePort()}`,
      "[mcp.inbound]",
      "enabled = true",
      'transport = "streamable_http"',
      "[mcp.inbound.http]",
      'auth_token = "$FERMIX_MCP_TOKEN"',
      "",
    ].join("\n"),
  );
  const env = {
    FERMIX_HOME: h.home,
    HOME: h.userHome,
    OPENAI_API_KEY: KEY,
    OPENAI_BASE_URL: fake.baseUrl,
    FERMIX_MCP_TOKEN: TOKEN,
  };
  const daemon = await startFermixDaemon(env);
  defer(() => daemon.stop());
  return { h, fake, daemon, url: `http://127.0.0.1:${port}/mcp`, port };
}

function post(url: string, headers: Record<string, string>): Promise<Response> {
  return fetch(url, {
    method: "POST",
    headers: { "content-type": "application/json", accept: "application/json, text/event-stream", ...headers },
    body: INITIALIZE,
  });
}

/** A request with a Host header fetch would not send: what a DNS-rebound page's request looks like. */
function postWithHost(port: number, host: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(
      {
        host: "127.0.0.1",
        port,
        path: "/mcp",
        method: "POST",
        headers: {
          host,
          authorization: `Bearer ${TOKEN}`,
          "content-type": "application/json",
          accept: "application/json, text/event-stream",
        },
      },
      (res) => {
        res.resume();
        resolve(res.statusCode ?? 0);
      },
    );
    req.on("error", reject);
    req.end(INITIALIZE);
  });
}

function filesUnder(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    return statSync(path).isDirectory() ? filesUnder(path) : [path];
  });
}

describe("inbound MCP over streamable HTTP (compiled daemon, SDK client)", () => {
  test("the bearer is required and checked; a rebound Host and another site's Origin are refused", async () => {
    const { url, port } = await setup();
    const none = await post(url, {});
    expect(none.status).toBe(401);
    expect(none.headers.get("www-authenticate")).toStartWith("Bearer");
    expect(await none.text()).not.toContain(TOKEN);
    const wrong = await post(url, { authorization: "Bearer not-the-token" });
    expect(wrong.status).toBe(401);
    const almost = await post(url, { authorization: `Bearer ${TOKEN}x` });
    expect(almost.status).toBe(401);

    expect(await postWithHost(port, "evil.example")).toBe(403);
    expect(await postWithHost(port, `evil.example:${port}`)).toBe(403);

    const crossSite = await post(url, { authorization: `Bearer ${TOKEN}`, origin: "http://evil.example" });
    expect(crossSite.status).toBe(403);

    const right = await post(url, { authorization: `Bearer ${TOKEN}` });
    expect(right.status).toBe(200);
    await right.body?.cancel();

    // The SDK client with a wrong bearer cannot even connect.
    const refused = new Client({ name: "fermix-test", version: "1.0.0" });
    const badTransport = new StreamableHTTPClientTransport(new URL(url), {
      requestInit: { headers: { authorization: "Bearer wrong" } },
    });
    await expect(refused.connect(badTransport)).rejects.toThrow();
  });

  test("with the bearer, the SDK client lists the tools and calls ask and a built-in; the token is never logged", async () => {
    const { h, fake, daemon, url } = await setup();
    fake.enqueue({ kind: "text", text: "Served over HTTP.", chunks: ["Served ", "over ", "HTTP."] });
    const client = new Client({ name: "fermix-test", version: "1.0.0" });
    const transport = new StreamableHTTPClientTransport(new URL(url), {
      requestInit: { headers: { authorization: `Bearer ${TOKEN}` } },
    });
    await client.connect(transport);
    defer(() => client.close());
    expect(client.getServerVersion()?.name).toBe("fermix");
    // Progress as it came off the SSE stream (see stdio.test.ts for why the wire, not only onprogress).
    const wire: string[] = [];
    const onmessage = transport.onmessage!;
    transport.onmessage = (message: JSONRPCMessage) => {
      if ("method" in message && message.method === "notifications/progress")
        wire.push(String((message.params as { message?: string }).message));
      onmessage(message);
    };

    const names = (await client.listTools()).tools.map((t) => t.name);
    expect(names).toContain("ask");
    expect(names).toContain("file_read");
    expect(names).not.toContain("shell");

    const progress: unknown[] = [];
    const answer = await client.callTool({ name: "ask", arguments: { prompt: "over http?" } }, undefined, {
      onprogress: (p) => progress.push(p),
    });
    expect(answer.isError).toBeFalsy();
    expect((answer.content as Array<{ text: string }>)[0]!.text).toBe("Served over HTTP.");
    expect(wire).toEqual(["Served ", "over ", "HTTP."]);

    const listed = await client.callTool({ name: "glob_search", arguments: { pattern: "*", path: "/etc" } });
    expect(listed.isError).toBe(true);
    await expect(client.callTool({ name: "shell", arguments: { command: "id" } })).rejects.toThrow(/shell/);

    // The turn ran in the daemon: its session is there for `fermix ask -s` to continue.
    const session = (answer.structuredContent as { session: string }).session;
    fake.enqueue({ kind: "text", text: "continued" });
    const cont = await runFermix(["ask", "--daemon", "-s", session, "go on"], {
      env: { FERMIX_HOME: h.home, HOME: h.userHome },
    });
    expect(cont.stdout.trim()).toBe("continued");
    expect(JSON.stringify(fake.requests.at(-1)?.body)).toContain("over http?");

    await client.close();
    await daemon.stop();
    expect(daemon.stderr()).not.toContain(TOKEN);
    for (const file of filesUnder(h.home)) expect(readFileSync(file).includes(TOKEN)).toBe(false);
  });
});
