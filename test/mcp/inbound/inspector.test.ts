import { describe, expect, test } from "bun:test";
import { existsSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { startFakeOpenAIResponses } from "../../fake/llm.ts";
import { fermixBinary } from "../../fixture/binary.ts";
import { cleanupAfterEach } from "../../fixture/cleanup.ts";
import { runCommand, startFermixDaemon } from "../../fixture/cli.ts";
import { tempHome } from "../../fixture/home.ts";
import { freePort } from "../../gateway/_whatsapp-daemon.ts";

/*
 * The MCP inspector's CLI mode (`mcp-inspector --cli`, the @modelcontextprotocol/inspector devDependency) as a
 * second, independent client: it lists fermix's tools and calls ask over stdio and over streamable HTTP.
 */

const INSPECTOR =
  process.env.TEST_MCP_INSPECTOR ?? resolve(import.meta.dir, "../../../node_modules/.bin/mcp-inspector");
const KEY = "sk-test-mcp-inspector-0123456789abcdef";
const TOKEN = "mcp-inspector-test-token-0a1b2c3d4e5f";
const defer = cleanupAfterEach();

async function setup(config: string) {
  const h = tempHome();
  const fake = await startFakeOpenAIResponses({ apiKey: KEY });
  defer(() => h[Symbol.asyncDispose]());
  defer(() => fake.close());
  h.writeConfig(config);
  return { h, fake };
}

/** The inspector under node, its catalog file kept inside the test's HOME. */
function inspector(args: string[], home: string) {
  const node = Bun.which("node");
  const path = [node ? dirname(node) : undefined, "/usr/bin", "/bin"].filter(Boolean).join(":");
  return runCommand([INSPECTOR, "--cli", ...args], {
    env: { PATH: path, HOME: home, MCP_CATALOG_PATH: join(home, "mcp.json") },
  });
}

describe.skipIf(!existsSync(INSPECTOR))("the MCP inspector's CLI mode against fermix", () => {
  test("stdio: tools/list shows ask and the read-only built-ins, not shell; tools/call ask answers", async () => {
    const { h, fake } = await setup("[mcp.inbound]\nenabled = true\n");
    const server = [
      "-e",
      `FERMIX_HOME=${h.home}`,
      "-e",
      `HOME=${h.userHome}`,
      "-e",
      `OPENAI_API_KEY=${KEY}`,
      "-e",
      `OPENAI_BASE_URL=${fake.baseUrl}`,
      await fermixBinary(),
      "mcp",
      "serve",
    ];
    const listed = await inspector([...server, "--method", "tools/list"], h.userHome);
    expect(listed.code).toBe(0);
    const names = JSON.parse(listed.stdout).tools.map((t: { name: string }) => t.name);
    expect(names).toContain("ask");
    expect(names).toContain("file_read");
    expect(names).not.toContain("shell");

    fake.enqueue({ kind: "text", text: "hello, inspector" });
    const called = await inspector(
      [...server, "--method", "tools/call", "--tool-name", "ask", "--tool-arg", "prompt=hi"],
      h.userHome,
    );
    expect(called.code).toBe(0);
    expect(JSON.parse(called.stdout).content[0].text).toBe("hello, inspector");
  }, 60_000);

  test("streamable HTTP: with the bearer it lists the tools; with a wrong one it is refused", async () => {
    const port = await freePort();
    const { h } = await setup(
      [
        "[fermix_web]",
        `port = ${port}`,
        `webhook_port = ${await freePort()}`,
        "[mcp.inbound]",
        "enabled = true",
        'transport = "streamable_http"',
        "[mcp.inbound.http]",
        `auth_token = "${TOKEN}"`,
        "",
      ].join("\n"),
    );
    const daemon = await startFermixDaemon({ FERMIX_HOME: h.home, HOME: h.userHome });
    defer(() => daemon.stop());
    const url = `http://127.0.0.1:${port}/mcp`;
    const listed = await inspector(
      [url, "--transport", "http", "--header", `Authorization: Bearer ${TOKEN}`, "--method", "tools/list"],
      h.userHome,
    );
    expect(listed.code).toBe(0);
    expect(JSON.parse(listed.stdout).tools.map((t: { name: string }) => t.name)).toContain("ask");
    const refused = await inspector(
      [url, "--transport", "http", "--header", "Authorization: Bearer wrong", "--method", "tools/list"],
      h.userHome,
    );
    expect(refused.code).not.toBe(0);
  }, 60_000);
});
