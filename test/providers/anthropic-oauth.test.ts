import { afterEach, describe, expect, test } from "bun:test";
import type { ToolSpec } from "../../src/providers/types.ts";
import { anthropicWire as wire } from "../../src/providers/wires/anthropic.ts";
import { type FakeLlm, startFakeAnthropic } from "../fake/llm.ts";
import { memoryTokens, signedInTarget } from "./_sign-in.ts";
import { drain, request, toolLoopHistory, WEATHER, WEATHER_ARGS } from "./wires/harness.ts";

const STALE = "sk-ant-oat01-stale-0123456789";
const FRESH = "sk-ant-oat01-fresh-9876543210";
const SONNET = "claude-sonnet-4-6";
const IDENTITY = "You are Claude Code, Anthropic's official CLI for Claude.";
const MCP_READ: ToolSpec = {
  name: "mcp_files_read",
  description: "Read a file (an outbound MCP tool)",
  parameters: { type: "object", properties: { path: { type: "string" } }, required: ["path"] },
};

const open: FakeLlm[] = [];
afterEach(async () => {
  while (open.length) await open.pop()!.close();
});

async function signedIn(opts: { accepts?: string; next?: string[] } = {}) {
  const fake = await startFakeAnthropic({ oauthToken: opts.accepts ?? STALE });
  open.push(fake);
  const tokens = memoryTokens(STALE, { next: opts.next });
  const target = signedInTarget("anthropic", { base_url: fake.baseUrl, auth_mode: "oauth" }, tokens);
  return { fake, tokens, target };
}

describe("anthropic, auth_mode = oauth", () => {
  test("the request is Claude Code's: bearer, identity headers, its system block first, no x-api-key", async () => {
    const { fake, target } = await signedIn();
    fake.enqueue({ kind: "text", text: "Rainy.", chunks: ["Rai", "ny."] });
    const out = await drain(wire, { target, request: request(SONNET, { tools: [WEATHER] }) });
    expect(out.deltas).toEqual(["Rai", "ny."]);
    expect(out.done?.stopReason).toBe("stop");
    const [sent] = fake.requests;
    expect(sent!.headers).toMatchObject({
      authorization: `Bearer ${STALE}`,
      "anthropic-version": "2023-06-01",
      "anthropic-beta": "claude-code-20250219,oauth-2025-04-20",
      "user-agent": "claude-cli/2.1.74 (external, cli)",
      "x-app": "cli",
    });
    expect(sent!.headers["x-api-key"]).toBeUndefined();
    expect(sent!.body.system).toEqual([
      { type: "text", text: IDENTITY },
      { type: "text", text: "You are terse.", cache_control: { type: "ephemeral" } },
    ]);
    expect(sent!.body.tools.map((t: { name: string }) => t.name)).toEqual(["mcp_get_weather"]);
  });

  test("tool names go out with mcp_ and come back as fermix named them, through a whole tool loop", async () => {
    const { fake, target } = await signedIn();
    fake.enqueue({
      kind: "tool_calls",
      text: "Checking.",
      calls: [
        { name: "mcp_get_weather", arguments: WEATHER_ARGS },
        { name: "mcp_files_read", arguments: { path: "notes.md" } },
      ],
    });
    const tools = [WEATHER, MCP_READ];
    const first = await drain(wire, { target, request: request(SONNET, { tools }) });
    expect(first.text).toBe("Checking.");
    expect(first.toolCalls.map((c) => [c.name, c.arguments])).toEqual([
      ["get_weather", WEATHER_ARGS],
      ["mcp_files_read", { path: "notes.md" }],
    ]);
    expect(first.done?.stopReason).toBe("tool_use");
    expect(fake.requests[0]!.body.tools.map((t: { name: string }) => t.name)).toEqual([
      "mcp_get_weather",
      "mcp_files_read",
    ]);

    fake.enqueue({ kind: "text", text: "12°C and raining; your notes agree." });
    const second = await drain(wire, {
      target,
      request: request(SONNET, { tools, messages: toolLoopHistory(first.toolCalls, "Checking.") }),
    });
    expect(second.text).toBe("12°C and raining; your notes agree.");
    const history = fake.requests[1]!.body.messages[1].content;
    expect(history.filter((b: { type: string }) => b.type === "tool_use").map((b: { name: string }) => b.name)).toEqual(
      ["mcp_get_weather", "mcp_files_read"],
    );
  });

  test("two tools that would meet on the wire are refused before any request", async () => {
    const { fake, target } = await signedIn();
    const clash: ToolSpec = { ...WEATHER, name: "mcp_get_weather" };
    const out = await drain(wire, { target, request: request(SONNET, { tools: [WEATHER, clash] }) });
    expect(fake.requests).toHaveLength(0);
    expect(out.error).toMatchObject({ class: "invalid_request" });
    expect(out.error!.message).toContain('"get_weather" and "mcp_get_weather"');
  });

  test("an expired token: one refresh, one retry with the new token", async () => {
    const { fake, tokens, target } = await signedIn({ accepts: FRESH, next: [FRESH] });
    const out = await drain(wire, { target, request: request(SONNET) });
    expect(out.text).toBe("pong");
    expect(tokens.refreshes).toEqual([STALE]);
    expect(fake.requests.map((r) => r.headers.authorization)).toEqual([`Bearer ${STALE}`, `Bearer ${FRESH}`]);
  });

  test("refused again after the refresh: a residual auth failure naming the login command, token redacted", async () => {
    const { fake, target } = await signedIn({ accepts: "nobody-has-this", next: [FRESH] });
    const out = await drain(wire, { target, request: request(SONNET) });
    expect(fake.requests).toHaveLength(2);
    expect(out.error).toMatchObject({ class: "auth", status: 401, oauthResidual: true });
    expect(out.error!.message).toContain("fermix auth login --provider anthropic");
    expect(out.error!.message).not.toContain(FRESH);
  });

  test("the fake refuses what the service refuses: a request not shaped like Claude Code's", async () => {
    const fake = await startFakeAnthropic({ oauthToken: STALE });
    open.push(fake);
    const post = (headers: Record<string, string>, body: Record<string, unknown>) =>
      fetch(`${fake.baseUrl}/v1/messages`, {
        method: "POST",
        headers: { "content-type": "application/json", "anthropic-version": "2023-06-01", ...headers },
        body: JSON.stringify({ model: SONNET, max_tokens: 10, messages: [{ role: "user", content: "hi" }], ...body }),
      });
    const noBeta = await post({ authorization: `Bearer ${STALE}` }, { system: [{ type: "text", text: IDENTITY }] });
    expect(noBeta.status).toBe(401);
    expect(((await noBeta.json()) as any).error.message).toBe("OAuth authentication is currently not supported.");
    const beta = { authorization: `Bearer ${STALE}`, "anthropic-beta": "claude-code-20250219,oauth-2025-04-20" };
    const noIdentity = await post(beta, { system: "be brief" });
    expect(noIdentity.status).toBe(400);
    expect(((await noIdentity.json()) as any).error.type).toBe("invalid_request_error");
    const ok = await post(beta, { system: [{ type: "text", text: IDENTITY }] });
    expect(ok.status).toBe(200);
  });

  test("api_key mode is unchanged: x-api-key, no Claude Code shape", async () => {
    const fake = await startFakeAnthropic({ apiKey: "sk-ant-api03-key" });
    open.push(fake);
    const tokens = memoryTokens(STALE);
    const target = signedInTarget("anthropic", { base_url: fake.baseUrl, api_key: "sk-ant-api03-key" }, tokens);
    const out = await drain(wire, { target, request: request(SONNET, { tools: [WEATHER] }) });
    expect(out.text).toBe("pong");
    expect(tokens.reads).toBe(0);
    const [sent] = fake.requests;
    expect(sent!.headers["x-api-key"]).toBe("sk-ant-api03-key");
    expect(sent!.headers["anthropic-beta"]).toBeUndefined();
    expect(sent!.body.tools[0].name).toBe("get_weather");
    expect(sent!.body.system).toHaveLength(1);
  });
});
