import { describe, expect, test } from "bun:test";
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { createApp } from "../../src/app.ts";
import { startFakeOpenAIResponses } from "../fake/llm.ts";
import { cleanupAfterEach } from "../fixture/cleanup.ts";
import { tempHome } from "../fixture/home.ts";
import { echoToolOutputs } from "../fixture/tool-outputs.ts";

const defer = cleanupAfterEach();
const KEY = "sk-test-dev-local-0123456789";
const EVERYTHING = join(import.meta.dir, "../../node_modules/@modelcontextprotocol/server-everything/dist/index.js");

describe("dev_local: a plugin folder loaded in place", () => {
  test("@modelcontextprotocol/server-everything as an mcp plugin: tools discovered and callable from a turn", async () => {
    const h = tempHome();
    defer(() => h[Symbol.asyncDispose]());
    const llm = await startFakeOpenAIResponses({ apiKey: KEY });
    defer(() => llm.close());
    const dir = join(h.userHome, "everything");
    mkdirSync(dir);
    writeFileSync(
      join(dir, "plugin.json"),
      JSON.stringify({
        schema_version: 2,
        name: "everything",
        display_name: "Everything",
        description: "The MCP reference test server.",
        category: "developer",
        version: "1.0.0",
        min_core_version: "0.1.0",
        plugin_api: 2,
        runtime: { kind: "node", command: "node", args: [EVERYTHING, "stdio"] },
        tools: [{ name: "everything_echo", description: "Echo a message.", read_only: true, rail: "mcp" }],
      }),
    );
    h.writeConfig(
      `[fermix_core.plugins]\nenabled = ["everything"]\ndev_local = ["${dir}"]\n[fermix_core.tools.tool_search]\nenabled = false\n`,
    );
    const app = await createApp({
      env: {
        FERMIX_HOME: h.home,
        HOME: h.userHome,
        PATH: process.env.PATH,
        OPENAI_API_KEY: KEY,
        OPENAI_BASE_URL: llm.baseUrl,
      },
    });
    defer(() => app.close());

    llm.enqueue({ kind: "tool_calls", calls: [{ name: "everything_get_sum", arguments: { a: 2, b: 3 } }] });
    echoToolOutputs(llm);
    const reply = await app.ask({
      key: { channel: "cli", chat: "e" },
      caller: { trust: "operator", local: true, attended: true },
      text: "add 2 and 3",
    });
    const offered: string[] = llm.requests[0]!.body.tools.map((t: any) => t.name);
    expect(offered).toContain("everything_echo");
    expect(offered).toContain("everything_get_sum");
    expect(reply.response).toContain("The sum of 2 and 3 is 5.");
  }, 30_000);
});
