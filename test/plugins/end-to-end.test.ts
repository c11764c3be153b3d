import { describe, expect, test } from "bun:test";
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { createApp } from "../../src/app.ts";
import { startFakeOpenAIResponses } from "../fake/llm.ts";
import { fakeSlack } from "../fake/plugin-apis/slack.ts";
import { cleanupAfterEach } from "../fixture/cleanup.ts";
import { tempHome } from "../fixture/home.ts";
import { echoToolOutputs } from "../fixture/tool-outputs.ts";
import { createLoopbackDoor, useFakeServers } from "../net/loopback-door.ts";

const defer = cleanupAfterEach();
const serve = useFakeServers();
const KEY = "sk-test-plugin-e2e-0123456789";
const TOKEN = "xoxb-e2e-0123456789-abcdefghij";
const SLACK_IP = "54.192.10.20";
const operator = { trust: "operator" as const, local: true, attended: true };

/** An owner with slack installed, enabled and keyed; the model and Slack are fakes on loopback. */
async function ownerWithSlack(toolSearch?: boolean) {
  const h = tempHome();
  defer(() => h[Symbol.asyncDispose]());
  const llm = await startFakeOpenAIResponses({ apiKey: KEY });
  defer(() => llm.close());
  const slack = fakeSlack({ token: TOKEN, channels: 5, pageSize: 2 });
  const { origin } = serve(slack.handler);
  const door = createLoopbackDoor({ names: { "slack.com": [SLACK_IP] }, routes: { [SLACK_IP]: origin } });
  mkdirSync(join(h.home, "secrets"), { recursive: true, mode: 0o700 });
  writeFileSync(join(h.home, "secrets", "PLUGIN_SLACK_API_KEY"), TOKEN, { mode: 0o600 });
  h.writeConfig(
    [
      "[fermix_core.plugins]",
      'enabled = ["slack"]',
      "[fermix_core.plugin_secrets]",
      'slack = "@keyring"',
      toolSearch === false ? "[fermix_core.tools.tool_search]\nenabled = false" : "",
    ].join("\n"),
  );
  const app = await createApp({
    env: { FERMIX_HOME: h.home, HOME: h.userHome, OPENAI_API_KEY: KEY, OPENAI_BASE_URL: llm.baseUrl },
    net: door.net,
  });
  defer(() => app.close());
  return { app, llm, slack, h };
}

describe("a ready plugin's tools, end to end", () => {
  test("the model finds a deferred slack tool with tool_search and runs it with tool_call against Slack", async () => {
    const { app, llm, slack } = await ownerWithSlack();
    // Install through the same verified pipeline `fermix plugins install slack` uses.
    const { pluginContextFor } = await import("./_context.ts");
    await (await pluginContextFor(app)).install("slack");

    llm.enqueue(
      { kind: "tool_calls", calls: [{ name: "tool_search", arguments: { query: "list slack channels" } }] },
      { kind: "tool_calls", calls: [{ name: "tool_call", arguments: { name: "slack_list_channels", arguments: {} } }] },
    );
    echoToolOutputs(llm);
    const reply = await app.ask({
      key: { channel: "cli", chat: "s" },
      caller: operator,
      text: "which channels are there?",
    });

    const first = llm.requests[0]!.body;
    const offered: string[] = first.tools.map((t: any) => t.name);
    expect(offered).toContain("tool_search");
    expect(offered).not.toContain("slack_list_channels"); // deferred: only its name, in ## Plugins
    expect(first.instructions).toMatch(/- slack: slack_list_channels/);
    expect(reply.response).toContain("slack_list_channels");
    for (let i = 1; i <= 5; i++) expect(reply.response).toContain(`channel-${i}`);
    // Paged through Slack's cursors with the bot token, reached through the guarded door.
    expect(slack.seen.filter((r) => r.path === "/api/conversations.list")).toHaveLength(3);
    expect(slack.seen[0]!.headers.get("authorization")).toBe(`Bearer ${TOKEN}`);
  });

  test("with deferral off the tool goes on the wire and the provider request is much larger", async () => {
    const on = await ownerWithSlack();
    const off = await ownerWithSlack(false);
    const { pluginContextFor } = await import("./_context.ts");
    await (await pluginContextFor(on.app)).install("slack");
    await (await pluginContextFor(off.app)).install("slack");
    await on.app.ask({ key: { channel: "cli", chat: "a" }, caller: operator, text: "hi" });
    await off.app.ask({ key: { channel: "cli", chat: "a" }, caller: operator, text: "hi" });
    const toolsOn: any[] = on.llm.requests[0]!.body.tools;
    const toolsOff: any[] = off.llm.requests[0]!.body.tools;
    expect(toolsOff.map((t) => t.name)).toContain("slack_list_channels");
    expect(toolsOff.map((t) => t.name)).not.toContain("tool_search");
    expect(toolsOn.map((t) => t.name)).not.toContain("slack_list_channels");
  });

  test("a guest sees no plugin tool, on the wire or behind the bridges", async () => {
    const { app, llm } = await ownerWithSlack();
    const { pluginContextFor } = await import("./_context.ts");
    await (await pluginContextFor(app)).install("slack");
    await app.ask({
      key: { channel: "telegram", chat: "9" },
      caller: { trust: "guest", local: false, attended: true },
      text: "hi",
    });
    const offered: string[] = (llm.requests[0]!.body.tools ?? []).map((t: any) => t.name);
    expect(offered.some((n) => n.startsWith("slack_"))).toBe(false);
    // A guest may have bridges now (its own job tools wait behind them), but no plugin tool is named there.
    expect(llm.requests[0]!.body.instructions).not.toContain("slack_");
  });
});
