import { describe, expect, test } from "bun:test";
import { callHttpTool, type HttpRailPlugin } from "../../../src/plugins/http-rail/call-tool.ts";
import type { ManifestTool } from "../../../src/plugins/manifest/schema.ts";
import { json, record, type Seen } from "../../fake/plugin-apis/recorder.ts";
import { createLoopbackDoor, useFakeServers } from "../../net/loopback-door.ts";

const IP = "93.184.216.34";
const names = {
  "api.example.org": [IP],
  "internal.example.org": ["10.0.0.5"],
  "mixed.example.org": [IP, "169.254.169.254"],
};
const KEY = "k3y-0123456789-abcdef";
const serve = useFakeServers();
const plugin: HttpRailPlugin = { name: "demo", auth: { type: "api_key", scheme: "Bearer", header: "Authorization" } };

function tool(request: Record<string, unknown>, properties: Record<string, unknown> = {}) {
  return {
    name: "demo_call",
    description: "d",
    read_only: true,
    rail: "http",
    parameters: { type: "object", properties },
    request: { method: "GET", success: [200], url: "https://api.example.org/v1/items", ...request },
  } as ManifestTool;
}

function setup(reply: (seen: Seen, all: Seen[]) => Response) {
  const seen: Seen[] = [];
  const fake = serve(async (request) => reply(await record(request, seen), seen));
  const { net, calls } = createLoopbackDoor({ names, routes: { [IP]: fake.origin } });
  return { seen, net, calls };
}

describe("the SSRF floor holds for plugin templates", () => {
  const targets = [
    ["https://127.0.0.1/admin", "loopback"],
    ["https://169.254.169.254/latest/meta-data/", "metadata address"],
    ["https://internal.example.org/x", "a name resolving to 10.0.0.5"],
    ["https://mixed.example.org/x", "a name with one private answer"],
  ];
  for (const [url, what] of targets) {
    test(`a template aimed at ${what} is refused by the door`, async () => {
      const { seen, net, calls } = setup(() => json({}));
      const result = await callHttpTool({ plugin, tool: tool({ url }), args: {}, credential: KEY, net });
      expect(result.isError).toBe(true);
      expect(result.content).toStartWith("demo_call was refused by the network guard: refused https://");
      expect(calls).toHaveLength(0);
      expect(seen).toHaveLength(0);
    });
  }

  test("arguments cannot steer the host: path and query values stay on the template's host", async () => {
    const { seen, net, calls } = setup(() => json({ ok: true }));
    const t = tool(
      { url: "https://api.example.org/v1/{path}", query: { next: "{next}" } },
      { path: { type: "string" }, next: { type: "string" } },
    );
    const args = { path: "@169.254.169.254/latest", next: "https://127.0.0.1/" };
    const result = await callHttpTool({ plugin, tool: t, args, credential: KEY, net });
    expect(result).toEqual({ content: '{"ok":true}' });
    expect(calls.map((c) => new URL(c.url).hostname)).toEqual([IP]);
    expect(seen[0]!.path).toBe("/v1/%40169.254.169.254%2Flatest");
    expect(seen[0]!.query.get("next")).toBe("https://127.0.0.1/");
  });

  test("a placeholder host never reaches the door", async () => {
    const { calls, net } = setup(() => json({}));
    const t = tool({ url: "https://{h}/x" }, { h: { type: "string" } });
    const result = await callHttpTool({ plugin, tool: t, args: { h: "127.0.0.1" }, credential: KEY, net });
    expect(result).toEqual({
      content: "demo_call: the request URL must have a fixed host; placeholders may only fill the path and query",
      isError: true,
    });
    expect(calls).toHaveLength(0);
  });
});

describe("responses", () => {
  test("204 and an empty 200 are {}", async () => {
    const { net } = setup((s) => (s.method === "DELETE" ? new Response(null, { status: 204 }) : new Response("")));
    const del = await callHttpTool({
      plugin,
      tool: tool({ method: "DELETE", success: [204] }),
      args: {},
      credential: KEY,
      net,
    });
    expect(del).toEqual({ content: "{}" });
    expect(await callHttpTool({ plugin, tool: tool({}), args: {}, credential: KEY, net })).toEqual({ content: "{}" });
  });

  test("a response over 5 MiB is an error, not a silently cut answer", async () => {
    const big = JSON.stringify({ blob: "x".repeat(5 * 1024 * 1024) });
    const { net } = setup(() => new Response(big, { headers: { "content-type": "application/json" } }));
    expect(await callHttpTool({ plugin, tool: tool({}), args: {}, credential: KEY, net })).toEqual({
      content: "demo_call failed: the response is larger than 5 MiB.",
      isError: true,
    });
  });

  test("pages stop at 10 MiB in total; the page that crossed it is dropped", async () => {
    const filler = "y".repeat(4 * 1024 * 1024);
    const { seen, net } = setup((_, all) => json({ data: [{ n: all.length, filler }], next: `c${all.length}` }));
    const t = tool({
      paginate: {
        mode: "cursor",
        cursor_path: "next",
        cursor_param: "after",
        cursor_in: "query",
        items_path: "data",
        max_pages: 10,
      },
      extract: { fields: ["n"] },
    });
    const result = await callHttpTool({ plugin, tool: t, args: {}, credential: KEY, net });
    expect(JSON.parse(result.content)).toEqual({ items: [{ n: 1 }, { n: 2 }], truncated: true });
    expect(seen).toHaveLength(3);
  });

  test("a cursor can ride in the body of a POST", async () => {
    const { seen, net } = setup((s) => {
      const after = JSON.parse(s.body).after;
      return json(
        after
          ? { results: [{ id: "b" }], has_more: false, next_cursor: null }
          : { results: [{ id: "a" }], next_cursor: "c1" },
      );
    });
    const t = tool(
      {
        method: "POST",
        body: { filter: "{filter}" },
        paginate: {
          mode: "cursor",
          cursor_path: "next_cursor",
          cursor_param: "after",
          cursor_in: "body",
          items_path: "results",
          max_pages: 5,
        },
      },
      { filter: { type: "string" } },
    );
    const result = await callHttpTool({ plugin, tool: t, args: { filter: "open" }, credential: KEY, net });
    expect(JSON.parse(result.content)).toEqual({ items: [{ id: "a" }, { id: "b" }], truncated: false });
    expect(seen.map((s) => JSON.parse(s.body))).toEqual([{ filter: "open" }, { filter: "open", after: "c1" }]);
  });

  test("error bodies are redacted (the credential too) and cut to 2 KiB", async () => {
    const leak = `token ${KEY} and ghp_${"Z".repeat(36)} ${"é".repeat(3000)}`;
    const { net } = setup(() => new Response(leak, { status: 500, headers: { "content-type": "text/plain" } }));
    const result = await callHttpTool({ plugin, tool: tool({}), args: {}, credential: KEY, net });
    expect(result.isError).toBe(true);
    expect(result.content).toStartWith(
      "demo_call failed with HTTP 500: token [REDACTED:secret] and [REDACTED:github] é",
    );
    expect(result.content).not.toContain(KEY);
    const body = result.content.slice("demo_call failed with HTTP 500: ".length);
    expect(new TextEncoder().encode(body).length).toBeLessThanOrEqual(2048);
    expect(body).toEndWith("é…");
  });
});

describe("credentials", () => {
  test("a custom header and the Bot scheme; a template header of the same name cannot win", async () => {
    const { seen, net } = setup(() => json({}));
    const bot: HttpRailPlugin = { name: "demo", auth: { type: "api_key", scheme: "Bot", header: "X-Token" } };
    const t = tool({ headers: { "x-token": "from-template" } });
    await callHttpTool({ plugin: bot, tool: t, args: {}, credential: KEY, net });
    expect(seen[0]!.headers.get("x-token")).toBe(`Bot ${KEY}`);
    expect(seen[0]!.headers.get("authorization")).toBeNull();
  });

  test("an api_key 401 asks for a new key", async () => {
    const { seen, net } = setup(() => json({ error: "bad key" }, 401));
    const result = await callHttpTool({
      plugin,
      tool: tool({}),
      args: {},
      credential: KEY,
      net,
      refresh: async () => "x",
    });
    expect(result).toEqual({
      content: "API key rejected — update it with fermix plugins auth set demo",
      isError: true,
    });
    expect(seen).toHaveLength(1);
  });

  test("auth none sends no Authorization", async () => {
    const { seen, net } = setup(() => json({}));
    await callHttpTool({ plugin: { name: "demo", auth: { type: "none" } }, tool: tool({}), args: {}, net });
    expect(seen[0]!.headers.get("authorization")).toBeNull();
  });
});

describe("cancellation and transport", () => {
  test("the caller's abort is thrown, not turned into a tool result", async () => {
    const { net } = setup(() => json({}));
    const controller = new AbortController();
    controller.abort(new Error("user cancelled"));
    const call = callHttpTool({ plugin, tool: tool({}), args: {}, credential: KEY, net, signal: controller.signal });
    await expect(call).rejects.toThrow("user cancelled");
  });

  test("an unresolvable name is a tool error", async () => {
    const { net } = setup(() => json({}));
    const result = await callHttpTool({
      plugin,
      tool: tool({ url: "https://nowhere.example.org/" }),
      args: {},
      credential: KEY,
      net,
    });
    expect(result.isError).toBe(true);
    expect(result.content).toStartWith("demo_call could not reach demo: could not resolve nowhere.example.org");
  });
});
