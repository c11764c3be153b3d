import { describe, expect, test } from "bun:test";
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { startFakeOpenAIResponses } from "../../fake/llm.ts";
import { startFakeMcpHttpServer } from "../../fake/mcp-http-server.ts";
import { startFakeTelegram, type TelegramCall, textMessage } from "../../fake/telegram-bot-api.ts";
import { cleanupAfterEach } from "../../fixture/cleanup.ts";
import { runFermix, startFermixDaemon } from "../../fixture/cli.ts";
import { tempHome } from "../../fixture/home.ts";
import { toolOutputs } from "../../fixture/tool-outputs.ts";
import { EVERYTHING, envOf, FILESYSTEM, KEY, serverToml } from "./_fixture.ts";

/**
 * More of [mcp.servers] on the compiled binary: server-filesystem and a streamable-HTTP server in real turns,
 * a crashing server's quarantine as doctor shows it, and a Telegram guest who is never offered an mcp_ tool.
 */
const defer = cleanupAfterEach();
const OWNER = 1001;
const GUEST = 2002;

async function setup(config: string, extraEnv: Record<string, string> = {}) {
  const h = tempHome();
  defer(() => h[Symbol.asyncDispose]());
  const llm = await startFakeOpenAIResponses({ apiKey: KEY });
  defer(() => llm.close());
  llm.setDefault({ kind: "text", text: "pong" });
  h.writeConfig(config);
  const env = { ...envOf(h, llm.baseUrl), ...extraEnv };
  return { h, llm, env };
}

/** Polls `fermix doctor` (what an owner would run) until its output matches, or fails at the deadline. */
async function doctorUntil(env: Record<string, string>, pattern: RegExp, deadlineMs = 30_000): Promise<string> {
  const until = Date.now() + deadlineMs;
  for (;;) {
    const out = (await runFermix(["doctor"], { env })).stdout;
    if (pattern.test(out)) return out;
    if (Date.now() > until) throw new Error(`doctor never matched ${pattern}:\n${out}`);
    await Bun.sleep(250); // polling a state through the CLI
  }
}

describe("real turns of the compiled binary", () => {
  test("server-filesystem: the model lists and reads the owner's folder through mcp_files_*", async () => {
    const h0 = tempHome();
    defer(() => h0[Symbol.asyncDispose]());
    const folder = join(h0.userHome, "notes");
    mkdirSync(folder, { recursive: true });
    writeFileSync(join(folder, "todo.txt"), "buy milk\n");
    const { llm, env } = await setup(serverToml("files", { command: "node", args: [FILESYSTEM, folder] }));
    llm.enqueue({
      kind: "tool_calls",
      calls: [{ name: "tool_call", arguments: { name: "mcp_files_list_directory", arguments: { path: folder } } }],
    });
    llm.enqueue({
      kind: "tool_calls",
      calls: [
        {
          name: "tool_call",
          arguments: { name: "mcp_files_read_text_file", arguments: { path: join(folder, "todo.txt") } },
        },
      ],
    });
    llm.setDefault((req) => ({ kind: "text", text: toolOutputs(req).join("\n") }));
    const r = await runFermix(["ask", "--no-daemon", "what is in my notes?"], { env });
    expect(r.code).toBe(0);
    expect(toolOutputs(llm.requests[1]!).join("")).toContain("[FILE] todo.txt");
    expect(r.stdout).toContain("buy milk");
  }, 60_000);

  test("a streamable-HTTP server on loopback, through the daemon, with a bearer from the environment", async () => {
    const http = await startFakeMcpHttpServer();
    defer(() => http.close());
    const { llm, env } = await setup(
      `${serverToml("remote", { url: http.url })}[mcp.servers.remote.headers]\nAuthorization = "$REMOTE_TOKEN"\n`,
      { REMOTE_TOKEN: "Bearer tok-abcdef0123456789" },
    );
    const daemon = await startFermixDaemon(env);
    defer(() => daemon.stop());
    await doctorUntil(env, /ok +MCP servers +remote \(http:\/\/127\.0\.0\.1:\d+\/mcp\): ready, 3 tools/);
    llm.enqueue({
      kind: "tool_calls",
      calls: [{ name: "tool_call", arguments: { name: "mcp_remote_echo", arguments: { message: "via daemon" } } }],
    });
    llm.setDefault((req) => ({ kind: "text", text: toolOutputs(req).join("") }));
    const r = await runFermix(["ask", "echo"], { env });
    expect(r.stdout).toContain("http echo: via daemon");
    expect(http.seenAuth.length).toBeGreaterThan(0);
    expect(http.seenAuth.every((a) => a === "Bearer tok-abcdef0123456789")).toBe(true);
    expect(await daemon.stop()).toBe(0);
    // The token is a secret: never in the daemon's output.
    expect(daemon.stderr()).not.toContain("tok-abcdef0123456789");
  }, 60_000);

  test("a server that exits at once is quarantined after 5 tries; doctor shows why and the fix", async () => {
    const { env } = await setup(
      serverToml("broken", { command: "node", args: ["-e", "console.error('boom: missing key'); process.exit(3)"] }),
    );
    const daemon = await startFermixDaemon(env);
    defer(() => daemon.stop());
    const out = await doctorUntil(env, /MCP servers +broken \(node\): quarantined/, 45_000);
    expect(out).toMatch(
      /warn MCP servers +broken \(node\): quarantined at .*: 5 discovery attempts failed; the last: the server exited with code 3/,
    );
    expect(out).toContain("boom: missing key");
    expect(out).toMatch(
      /fix: run `node -e .*` by hand to see why; after fixing \[mcp\.servers\.broken\]: fermix restart/,
    );
    expect((await runFermix(["ask", "ping"], { env })).stdout).toBe("pong\n");
  }, 60_000);
});

describe("guests", () => {
  test("a Telegram guest's turn is offered no mcp_ tool while the owner's is", async () => {
    const h = tempHome();
    defer(() => h[Symbol.asyncDispose]());
    const llm = await startFakeOpenAIResponses({ apiKey: KEY });
    defer(() => llm.close());
    const tg = await startFakeTelegram();
    defer(() => tg.close());
    h.writeConfig(
      [
        "[fermix_channels.telegram]",
        "enabled = true",
        `bot_token = "${tg.token}"`,
        `owner_user_id = ${OWNER}`,
        `allowed_user_ids = ["${GUEST}"]`,
        `api_base_url = "${tg.baseUrl}"`,
        'streaming = "off"',
        "[fermix_core.tools.tool_search]",
        "enabled = false",
        serverToml("everything", { command: "node", args: [EVERYTHING, "stdio"] }),
      ].join("\n"),
    );
    const env = envOf(h, llm.baseUrl);
    const polling = tg.waitForCall("getUpdates", (c) => c.params.timeout === 50);
    const daemon = await startFermixDaemon(env);
    defer(() => daemon.stop());
    await polling;
    await doctorUntil(env, /ok +MCP servers +everything \(node\): ready/);
    llm.setDefault({ kind: "text", text: "Hi." });

    const ask = async (from: number) => {
      const mark = tg.calls.length;
      const reply = tg.waitForCall(
        "sendMessage",
        (c: TelegramCall) => tg.calls.indexOf(c) >= mark && c.params.chat_id === from,
      );
      tg.pushUpdate(textMessage({ chatId: from, fromId: from, text: "hello" }));
      await (await reply).answered;
      return llm.requests.at(-1)!.body;
    };
    const guestBody = await ask(GUEST);
    const guestTools: string[] = (guestBody.tools ?? []).map((t: { name: string }) => t.name);
    expect(guestTools.filter((n) => n.startsWith("mcp_"))).toEqual([]);
    expect(String(guestBody.instructions)).not.toContain("mcp_everything");
    const ownerBody = await ask(OWNER);
    expect((ownerBody.tools ?? []).map((t: { name: string }) => t.name)).toContain("mcp_everything_echo");
  }, 60_000);
});
