import { describe, expect, test } from "bun:test";
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import type { JSONRPCMessage, Progress } from "@modelcontextprotocol/sdk/types.js";
import { startFakeOpenAIResponses } from "../../fake/llm.ts";
import { fermixBinary } from "../../fixture/binary.ts";
import { cleanupAfterEach } from "../../fixture/cleanup.ts";
import { runFermix, startFermixDaemon } from "../../fixture/cli.ts";
import { tempHome } from "../../fixture/home.ts";

/*
 * `fermix mcp serve` as a real MCP client sees it: the official SDK Client drives the compiled binary over stdio,
 * with a fake provider behind the ask tool.
 */

const KEY = "sk-test-mcp-inbound-0123456789abcdef";
const defer = cleanupAfterEach();

type TextContent = { type: string; text: string };

async function setup(inbound = "[mcp.inbound]\nenabled = true\n") {
  const h = tempHome();
  const fake = await startFakeOpenAIResponses({ apiKey: KEY });
  defer(() => h[Symbol.asyncDispose]());
  defer(() => fake.close());
  h.writeConfig(inbound);
  const env = { FERMIX_HOME: h.home, HOME: h.userHome, OPENAI_API_KEY: KEY, OPENAI_BASE_URL: fake.baseUrl };
  return { h, fake, env };
}

async function connect(env: Record<string, string>) {
  const transport = new StdioClientTransport({
    command: await fermixBinary(),
    args: ["mcp", "serve"],
    env: { PATH: "/usr/bin:/bin", ...env },
    stderr: "pipe",
  });
  let stderr = "";
  transport.stderr?.on("data", (chunk) => {
    stderr += String(chunk);
  });
  const client = new Client({ name: "fermix-test", version: "1.0.0" });
  await client.connect(transport);
  defer(() => client.close());
  // Every progress notification as it came off the wire: the SDK client hands `onprogress` only those that arrive
  // before the result is read (several in one read race the result), so the wire is what proves them all sent.
  const wire: Array<Progress & { progressToken?: string | number }> = [];
  const onmessage = transport.onmessage!;
  transport.onmessage = (message: JSONRPCMessage) => {
    if ("method" in message && message.method === "notifications/progress")
      wire.push(message.params as Progress & { progressToken?: string | number });
    onmessage(message);
  };
  return { client, stderr: () => stderr, wire };
}

/** `fermix mcp serve` spoken to line by line, for what an SDK client never sends. */
async function rawServe(env: Record<string, string>) {
  const proc = Bun.spawn([await fermixBinary(), "mcp", "serve"], {
    env: { PATH: "/usr/bin:/bin", ...env },
    stdin: "pipe",
    stdout: "pipe",
    stderr: "pipe",
  });
  defer(async () => {
    proc.kill();
    await proc.exited;
  });
  const reader = proc.stdout.pipeThrough(new TextDecoderStream()).getReader();
  let buffered = "";
  return {
    proc,
    send(text: string) {
      proc.stdin.write(text);
      proc.stdin.flush();
    },
    /** The next line the server wrote, parsed. */
    async next(): Promise<any> {
      while (!buffered.includes("\n")) {
        const { done, value } = await reader.read();
        if (done) throw new Error(`stdout ended; stderr: ${await new Response(proc.stderr).text()}`);
        buffered += value;
      }
      const at = buffered.indexOf("\n");
      const line = buffered.slice(0, at);
      buffered = buffered.slice(at + 1);
      return JSON.parse(line);
    },
  };
}

const request = (id: number, method: string, params?: object) =>
  `${JSON.stringify({ jsonrpc: "2.0", id, method, ...(params ? { params } : {}) })}\n`;

const text = (result: unknown) => ((result as { content: TextContent[] }).content ?? []).map((c) => c.text).join("");

describe("fermix mcp serve (stdio, compiled binary, SDK client)", () => {
  test("lists ask and the read-only and read-write built-ins, never shell; the server is named fermix", async () => {
    const { env } = await setup();
    const { client } = await connect(env);
    expect(client.getServerVersion()?.name).toBe("fermix");
    const names = (await client.listTools()).tools.map((t) => t.name);
    expect(names[0]).toBe("ask");
    for (const name of ["file_read", "glob_search", "content_search", "file_write", "memory_recall"])
      expect(names).toContain(name);
    // exec-class, network, the chat-only tools and the approval loop stay out by default.
    for (const name of ["shell", "subagents", "web_fetch", "react", "send_attachment", "request_directory_access"])
      expect(names).not.toContain(name);
  });

  test("ask runs a turn in-process (no daemon) with the fake model's answer, progress notifications on the way", async () => {
    const { fake, env } = await setup();
    fake.enqueue({ kind: "text", text: "The answer is forty-two.", chunks: ["The answer ", "is forty", "-two."] });
    const { client, wire } = await connect(env);
    const progress: Progress[] = [];
    const result = await client.callTool(
      { name: "ask", arguments: { prompt: "what is the answer?", session: "mcp-test-1" } },
      undefined,
      { onprogress: (p) => progress.push(p) },
    );
    expect(result.isError).toBeFalsy();
    expect(text(result)).toBe("The answer is forty-two.");
    expect(result.structuredContent).toEqual({ response: "The answer is forty-two.", session: "mcp-test-1" });
    // What reached onprogress is a prefix of the wire's (see connect).
    expect(wire.slice(0, progress.length).map(({ progressToken: _, ...p }) => p)).toEqual(progress);
    expect(wire.map((p) => p.message)).toEqual(["The answer ", "is forty", "-two."]);
    expect(wire.map((p) => p.progress)).toEqual([1, 2, 3]);
    // The same session continues: the second request carries the first exchange.
    fake.enqueue({ kind: "text", text: "Still forty-two." });
    const again = await client.callTool({ name: "ask", arguments: { prompt: "and now?", session: "mcp-test-1" } });
    expect(text(again)).toBe("Still forty-two.");
    expect(JSON.stringify(fake.requests.at(-1)?.body)).toContain("what is the answer?");
  });

  test("ask goes through the running daemon when there is one", async () => {
    const { fake, env } = await setup();
    const daemon = await startFermixDaemon(env);
    defer(() => daemon.stop());
    fake.enqueue({ kind: "text", text: "answered by the daemon" });
    // The stdio server gets no provider key: only the daemon can answer.
    const { client } = await connect({ FERMIX_HOME: env.FERMIX_HOME, HOME: env.HOME });
    const result = await client.callTool({ name: "ask", arguments: { prompt: "who answers?" } });
    expect(text(result)).toBe("answered by the daemon");
    const session = (result.structuredContent as { session: string }).session;
    const status = await runFermix(["ask", "--json", "-s", session, "--daemon", "remember?"], {
      env: { FERMIX_HOME: env.FERMIX_HOME, HOME: env.HOME },
    });
    expect(status.code).toBe(0);
  });

  test("built-ins run through the sandbox: the workspace is readable, a path outside it is refused", async () => {
    const { h, env } = await setup();
    const workspace = join(h.home, "workspace");
    mkdirSync(workspace, { recursive: true });
    writeFileSync(join(workspace, "notes.md"), "inbound works\n");
    const secret = join(h.userHome, "private.txt");
    writeFileSync(secret, "owner's secret\n");
    const { client } = await connect(env);

    const read = await client.callTool({ name: "file_read", arguments: { path: join(workspace, "notes.md") } });
    expect(read.isError).toBeFalsy();
    expect(text(read)).toContain("inbound works");
    const found = await client.callTool({ name: "glob_search", arguments: { pattern: "*.md", path: workspace } });
    expect(text(found)).toContain("notes.md");

    const outside = await client.callTool({ name: "file_read", arguments: { path: secret } });
    expect(outside.isError).toBe(true);
    expect(text(outside)).not.toContain("owner's secret");
    expect(text(outside)).toContain("outside");
  });

  test("shell and a denied tool are refused; allowed_tools exposes shell explicitly", async () => {
    const { env } = await setup('[mcp.inbound]\nenabled = true\ndenied_tools = ["file_read", "ask"]\n');
    const { client } = await connect(env);
    const names = (await client.listTools()).tools.map((t) => t.name);
    expect(names).not.toContain("file_read");
    expect(names).not.toContain("ask");
    await expect(client.callTool({ name: "file_read", arguments: { path: "/etc/hostname" } })).rejects.toThrow(
      /does not expose a tool named "file_read"/,
    );
    await expect(client.callTool({ name: "shell", arguments: { command: "id" } })).rejects.toThrow(/shell/);
    await expect(client.callTool({ name: "ask", arguments: { prompt: "hi" } })).rejects.toThrow(/ask/);
    await client.close();

    const allowed = await setup('[mcp.inbound]\nenabled = true\nallowed_tools = ["shell"]\n');
    const second = await connect(allowed.env);
    expect((await second.client.listTools()).tools.map((t) => t.name)).toContain("shell");
  });

  test("a line that is not JSON gets a -32700 answer with id null, and the server goes on answering", async () => {
    const { env } = await setup();
    const serve = await rawServe(env);
    serve.send(
      `this is not json {\n${request(1, "initialize", {
        protocolVersion: "2025-06-18",
        capabilities: {},
        clientInfo: { name: "raw", version: "1" },
      })}`,
    );
    expect(await serve.next()).toEqual({
      jsonrpc: "2.0",
      id: null,
      error: { code: -32700, message: expect.stringContaining("Parse error") },
    });
    expect(await serve.next()).toMatchObject({ id: 1, result: { serverInfo: { name: "fermix" } } });
    serve.send(
      `${JSON.stringify({ jsonrpc: "2.0", method: "notifications/initialized" })}\n${request(2, "tools/list")}`,
    );
    const listed = await serve.next();
    expect(listed.id).toBe(2);
    expect(listed.result.tools.map((t: { name: string }) => t.name)).toContain("ask");
  });

  test("a line over the limit gets an error answer, the rest of it is skipped, the next request is answered", async () => {
    // The limit is 10 MiB; FERMIX_TEST_MCP_STDIO_MAX_LINE_BYTES lowers it so the test feeds 64 KiB, not 10 MiB.
    const { env } = await setup();
    const serve = await rawServe({ ...env, FERMIX_TEST_MCP_STDIO_MAX_LINE_BYTES: "4096" });
    serve.send(request(1, "ping"));
    expect(await serve.next()).toEqual({ jsonrpc: "2.0", id: 1, result: {} });
    serve.send(request(2, "ping", { pad: "x".repeat(64 * 1024) }));
    serve.send(request(3, "ping"));
    expect(await serve.next()).toEqual({
      jsonrpc: "2.0",
      id: null,
      error: { code: -32600, message: expect.stringContaining("longer than 4096 bytes") },
    });
    expect(await serve.next()).toEqual({ jsonrpc: "2.0", id: 3, result: {} });
    expect(serve.proc.exitCode).toBeNull();
  });

  test("off unless [mcp.inbound] enabled = true: serve says which key to set, and nothing reaches stdout", async () => {
    const { env } = await setup("");
    const r = await runFermix(["mcp", "serve"], { env, stdin: "" });
    expect(r.code).not.toBe(0);
    expect(r.stdout).toBe("");
    expect(r.stderr).toContain("enabled = true under [mcp.inbound]");
  });
});
