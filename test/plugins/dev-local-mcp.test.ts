import { describe, expect, test } from "bun:test";
import { existsSync } from "node:fs";
import { join } from "node:path";
import { createApp } from "../../src/app.ts";
import { liveGroupCount } from "../../src/plugins/mcp-rail/process-groups.ts";
import { startFakeOpenAIResponses } from "../fake/llm.ts";
import { cleanupAfterEach } from "../fixture/cleanup.ts";
import { type TempHome, tempHome } from "../fixture/home.ts";
import { echoToolOutputs } from "../fixture/tool-outputs.ts";
import { writeEverythingPlugin } from "./mcp-rail/_fixture.ts";

const defer = cleanupAfterEach();
const KEY = "sk-test-dev-local-0123456789";
const operator = { trust: "operator" as const, local: true, attended: true };

/** server-everything as a dev_local plugin that declares one of its tools (echo) in its manifest. */
async function setup() {
  const h = tempHome();
  defer(() => h[Symbol.asyncDispose]());
  const llm = await startFakeOpenAIResponses({ apiKey: KEY });
  defer(() => llm.close());
  // dev_local names the folder that holds plugin folders; this one holds just "everything".
  const root = join(h.userHome, "plugins");
  await writeEverythingPlugin(root);
  h.writeConfig(
    `[fermix_core.plugins]\nenabled = ["everything"]\ndev_local = "${root}"\n[fermix_core.tools.tool_search]\nenabled = false\n`,
  );
  const app = (role?: "daemon") =>
    createApp({ env: envOf(h, llm.baseUrl), role }).then((a) => {
      defer(() => a.close());
      return a;
    });
  return { h, llm, app };
}

function envOf(h: TempHome, baseUrl: string) {
  return {
    FERMIX_HOME: h.home,
    HOME: h.userHome,
    PATH: process.env.PATH,
    OPENAI_API_KEY: KEY,
    OPENAI_BASE_URL: baseUrl,
  };
}

const offeredIn = (body: any): string[] => body.tools.map((t: any) => t.name);

describe("dev_local server-everything in a one-shot ask (the server starts only when a tool is called)", () => {
  test("an ask that uses no plugin tool starts nothing; the manifest's tools are offered", async () => {
    const { llm, app } = await setup();
    const a = await app();
    llm.setDefault({ kind: "text", text: "pong" });
    expect((await a.ask({ key: { channel: "cli", chat: "p" }, caller: operator, text: "ping" })).response).toBe("pong");
    expect(offeredIn(llm.requests[0]!.body)).toContain("everything_echo");
    expect(liveGroupCount()).toBe(0);
  });

  test("calling a declared tool starts the server; its real tools are offered from the next request and cached", async () => {
    const { h, llm, app } = await setup();
    const first = await app();
    llm.enqueue({ kind: "tool_calls", calls: [{ name: "everything_echo", arguments: { message: "hi" } }] });
    llm.enqueue({ kind: "tool_calls", calls: [{ name: "everything_get_sum", arguments: { a: 2, b: 3 } }] });
    echoToolOutputs(llm);
    const reply = await first.ask({ key: { channel: "cli", chat: "e" }, caller: operator, text: "echo, then add" });
    expect(offeredIn(llm.requests[0]!.body)).not.toContain("everything_get_sum");
    expect(offeredIn(llm.requests[1]!.body)).toContain("everything_get_sum");
    expect(reply.response).toContain("Echo: hi");
    expect(reply.response).toContain("The sum of 2 and 3 is 5.");
    await first.close();
    expect(liveGroupCount()).toBe(0);
    expect(existsSync(join(h.home, "plugins", "mcp-tools", "everything.json"))).toBe(true);

    // The next ask offers the discovered tools before anything starts.
    const second = await app();
    llm.setDefault({ kind: "text", text: "pong" });
    const before = llm.requests.length;
    await second.ask({ key: { channel: "cli", chat: "f" }, caller: operator, text: "ping" });
    expect(offeredIn(llm.requests[before]!.body)).toContain("everything_get_sum");
    expect(liveGroupCount()).toBe(0);
  }, 30_000);
});

describe("dev_local server-everything in the daemon (servers start in the background)", () => {
  test("the server comes up on its own, and a turn offers its tools; the report says ready with the count", async () => {
    const { llm, app } = await setup();
    const a = await app("daemon");
    await a.plugins.startServers();
    let report = await a.plugins.report();
    expect(report.active).toBe(true);
    expect(["starting", "ready"]).toContain(report.plugins.find((p) => p.name === "everything")!.status);
    await a.plugins.settled();
    report = await a.plugins.report();
    const everything = report.plugins.find((p) => p.name === "everything")!;
    expect(everything).toMatchObject({ status: "ready", readiness: "ready", source: "dev_local" });
    expect(everything.tools).toBeGreaterThan(5);

    llm.enqueue({ kind: "tool_calls", calls: [{ name: "everything_get_sum", arguments: { a: 2, b: 3 } }] });
    echoToolOutputs(llm);
    const reply = await a.ask({ key: { channel: "cli", chat: "d" }, caller: operator, text: "add 2 and 3" });
    expect(offeredIn(llm.requests[0]!.body)).toContain("everything_get_sum");
    expect(reply.response).toContain("The sum of 2 and 3 is 5.");
    await a.close();
    expect(liveGroupCount()).toBe(0);
  }, 30_000);
});
