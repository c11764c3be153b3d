import { describe, expect, test } from "bun:test";
import { existsSync, mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { liveGroupCount } from "../../../src/plugins/mcp-rail/process-groups.ts";
import { startFakeMcpHttpServer } from "../../fake/mcp-http-server.ts";
import { cleanupAfterEach } from "../../fixture/cleanup.ts";
import { echoToolOutputs, toolOutputs } from "../../fixture/tool-outputs.ts";
import { EVERYTHING, FILESYSTEM, guest, NO_DEFERRAL, offeredIn, operator, serverToml, setup } from "./_fixture.ts";

/**
 * The owner's [mcp.servers] in an in-process app, against the real reference servers (server-everything and
 * server-filesystem over stdio) and an SDK-built streamable-HTTP server on 127.0.0.1.
 */
const defer = cleanupAfterEach();
const everything = serverToml("everything", { command: "node", args: [EVERYTHING, "stdio"] });

describe("stdio servers", () => {
  test("daemon: server-everything starts in the background; its tools are mcp_everything_*, and echo runs", async () => {
    const { llm, app } = await setup(defer, everything + NO_DEFERRAL);
    const a = await app("daemon");
    await a.plugins.startServers();
    await a.plugins.settled();
    llm.enqueue({ kind: "tool_calls", calls: [{ name: "mcp_everything_echo", arguments: { message: "hi" } }] });
    echoToolOutputs(llm);
    const reply = await a.ask({ key: { channel: "cli", chat: "d" }, caller: operator, text: "echo hi" });
    const offered = offeredIn(llm.requests[0]!.body);
    expect(offered).toContain("mcp_everything_echo");
    expect(offered).toContain("mcp_everything_get_sum");
    expect(offered.filter((n) => n.startsWith("mcp_")).every((n) => /^[a-z0-9_]{1,64}$/.test(n))).toBe(true);
    expect(reply.response).toContain("Echo: hi");
    await a.close();
    expect(liveGroupCount()).toBe(0);
  }, 30_000);

  test("one-shot: the first ask waits for discovery (bounded) and caches; the next offers the cache unstarted", async () => {
    const { h, llm, app } = await setup(defer, everything + NO_DEFERRAL);
    const first = await app();
    llm.enqueue({ kind: "tool_calls", calls: [{ name: "mcp_everything_get_sum", arguments: { a: 2, b: 3 } }] });
    echoToolOutputs(llm);
    const reply = await first.ask({ key: { channel: "cli", chat: "o" }, caller: operator, text: "add" });
    expect(offeredIn(llm.requests[0]!.body)).toContain("mcp_everything_get_sum");
    expect(reply.response).toContain("The sum of 2 and 3 is 5.");
    await first.close();
    expect(liveGroupCount()).toBe(0);
    expect(existsSync(join(h.home, "mcp", "servers", "mcp_everything.json"))).toBe(true);

    const second = await app();
    llm.setDefault({ kind: "text", text: "pong" });
    const before = llm.requests.length;
    await second.ask({ key: { channel: "cli", chat: "p" }, caller: operator, text: "ping" });
    expect(offeredIn(llm.requests[before]!.body)).toContain("mcp_everything_echo");
    // Offered from the cache: nothing was started for an ask that called none of them.
    expect(liveGroupCount()).toBe(0);
  }, 30_000);

  test("server-filesystem: list_directory over the owner's folder, read_only by the owner's per-tool class", async () => {
    const { h, llm, app } = await setup(defer, "");
    const folder = join(h.userHome, "notes");
    mkdirSync(folder, { recursive: true });
    writeFileSync(join(folder, "todo.txt"), "buy milk\n");
    h.writeConfig(
      serverToml("files", { command: "node", args: [FILESYSTEM, folder] }) +
        '[mcp.servers.files.tools.list_directory]\npolicy_class = "read_only"\n' +
        NO_DEFERRAL,
    );
    const a = await app("daemon");
    await a.plugins.startServers();
    await a.plugins.settled();
    llm.enqueue({ kind: "tool_calls", calls: [{ name: "mcp_files_list_directory", arguments: { path: folder } }] });
    llm.enqueue({
      kind: "tool_calls",
      calls: [{ name: "mcp_files_read_text_file", arguments: { path: join(folder, "todo.txt") } }],
    });
    echoToolOutputs(llm);
    const reply = await a.ask({ key: { channel: "cli", chat: "f" }, caller: operator, text: "what's in my notes" });
    expect(reply.response).toContain("buy milk");
    expect(toolOutputs(llm.requests[1]!)[0]).toContain("[FILE] todo.txt");
    const tools = llm.requests[0]!.body.tools as Array<{ name: string }>;
    expect(tools.map((t) => t.name)).toContain("mcp_files_write_file");
    // The owner's per-tool class, and external_api for the rest.
    const { mcpCapabilityRows } = await import("../../../src/mcp/outbound/capability-rows.ts");
    const rows = mcpCapabilityRows(h.home, a.config);
    expect(rows.find((r) => r.name === "mcp_files_list_directory")).toMatchObject({
      policy: "read_only",
      read_only: true,
    });
    expect(rows.find((r) => r.name === "mcp_files_write_file")).toMatchObject({
      policy: "external_api",
      read_only: false,
    });
  }, 30_000);

  test("a guest turn is offered no mcp_ tool and is not told of any", async () => {
    const { llm, app } = await setup(defer, everything + NO_DEFERRAL);
    const a = await app("daemon");
    await a.plugins.startServers();
    await a.plugins.settled();
    llm.setDefault({ kind: "text", text: "hello" });
    await a.ask({ key: { channel: "telegram", chat: "g" }, caller: guest, text: "hi" });
    const body = llm.requests[0]!.body;
    expect(offeredIn(body).filter((n) => n.startsWith("mcp_"))).toEqual([]);
    expect(String(body.instructions)).not.toContain("mcp_everything");
    // The owner still has them.
    await a.ask({ key: { channel: "cli", chat: "o" }, caller: operator, text: "hi" });
    expect(offeredIn(llm.requests[1]!.body)).toContain("mcp_everything_echo");
  }, 30_000);

  test("with tool_search on, the tools are deferred: named under On request, reachable through tool_call", async () => {
    const { llm, app } = await setup(defer, everything);
    const a = await app("daemon");
    await a.plugins.startServers();
    await a.plugins.settled();
    llm.enqueue({
      kind: "tool_calls",
      calls: [{ name: "tool_call", arguments: { name: "mcp_everything_echo", arguments: { message: "deferred" } } }],
    });
    echoToolOutputs(llm);
    const reply = await a.ask({ key: { channel: "cli", chat: "t" }, caller: operator, text: "echo" });
    expect(offeredIn(llm.requests[0]!.body)).not.toContain("mcp_everything_echo");
    expect(String(llm.requests[0]!.body.instructions)).toContain("- mcp_everything_echo:");
    expect(reply.response).toContain("Echo: deferred");
  }, 30_000);
});

describe("streamable HTTP", () => {
  test("an owner's loopback url: tools listed and called, the header's secret sent, list_changed honoured", async () => {
    const http = await startFakeMcpHttpServer();
    defer(() => http.close());
    const config =
      serverToml("remote", { url: http.url }) +
      '[mcp.servers.remote.headers]\nAuthorization = { source = "env", name = "REMOTE_TOKEN" }\n' +
      NO_DEFERRAL;
    const { llm, app } = await setup(defer, config, { REMOTE_TOKEN: "Bearer tok-0123456789" });
    const a = await app("daemon");
    await a.plugins.startServers();
    await a.plugins.settled();
    llm.enqueue({ kind: "tool_calls", calls: [{ name: "mcp_remote_echo", arguments: { message: "over http" } }] });
    llm.enqueue({ kind: "tool_calls", calls: [{ name: "mcp_remote_add_tool", arguments: { name: "fresh" } }] });
    echoToolOutputs(llm);
    const reply = await a.ask({ key: { channel: "cli", chat: "h" }, caller: operator, text: "echo, then add" });
    expect(reply.response).toContain("http echo: over http");
    expect(reply.response).toContain("added fresh");
    expect(http.seenAuth.every((auth) => auth === "Bearer tok-0123456789")).toBe(true);
    // notifications/tools/list_changed: the new tool is offered once the server said so (readiness: the view).
    const deadline = Date.now() + 10_000;
    for (;;) {
      llm.setDefault({ kind: "text", text: "ok" });
      const before = llm.requests.length;
      await a.ask({ key: { channel: "cli", chat: "h2" }, caller: operator, text: "list" });
      if (offeredIn(llm.requests[before]!.body).includes("mcp_remote_fresh")) break;
      if (Date.now() > deadline) throw new Error("mcp_remote_fresh never offered");
      await Bun.sleep(100); // the re-list runs after the server's notification, debounced
    }
    await a.close();
  }, 30_000);

  test("a server that goes away mid-session: the call says so, reconnects are tried, then it is quarantined", async () => {
    const http = await startFakeMcpHttpServer();
    const { h, llm, app } = await setup(defer, serverToml("remote", { url: http.url }) + NO_DEFERRAL);
    const a = await app("daemon");
    await a.plugins.startServers();
    await a.plugins.settled();
    await http.close();
    llm.enqueue({ kind: "tool_calls", calls: [{ name: "mcp_remote_echo", arguments: { message: "anyone?" } }] });
    echoToolOutputs(llm);
    const reply = await a.ask({ key: { channel: "cli", chat: "gone" }, caller: operator, text: "echo" });
    expect(reply.response).toMatch(
      /^MCP tool 'remote\/echo' failed: (MCP error -32000: Connection closed|could not connect)/,
    );
    const { createServerMemory } = await import("../../../src/mcp/outbound/server-state.ts");
    const { outboundServers } = await import("../../../src/mcp/outbound/server-config.ts");
    const server = outboundServers(a.config)[0]!;
    await a.plugins.settled(); // the reconnect's discovery, to its end
    const state = createServerMemory(h.home).state(server);
    expect(state).toMatchObject({ state: "quarantined", role: "daemon" });
    expect(state!.reason).toContain("could not reach");
  }, 30_000);

  test("a url the owner did not write is refused; private addresses other than loopback are refused", async () => {
    const { ownerFetch } = await import("../../../src/mcp/outbound/owner-fetch.ts");
    const door = ownerFetch("http://127.0.0.1:9/mcp", {
      fetch: (async () => new Response("ok")) as unknown as typeof fetch,
    });
    await expect(door("http://127.0.0.2:9/mcp")).rejects.toThrow(/only http:\/\/127\.0\.0\.1:9/);
    expect((await door("http://127.0.0.1:9/mcp")).status).toBe(200);
    const lan = ownerFetch("http://192.168.1.5/mcp", {
      fetch: (async () => new Response("ok")) as unknown as typeof fetch,
    });
    await expect(lan("http://192.168.1.5/mcp")).rejects.toThrow(/private address/);
    const meta = ownerFetch("http://metadata.example/mcp", {
      resolve: async () => ["169.254.169.254"],
      fetch: (async () => new Response("ok")) as unknown as typeof fetch,
    });
    await expect(meta("http://metadata.example/mcp")).rejects.toThrow(/link-local/);
  });
});
