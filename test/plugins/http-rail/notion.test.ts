import { describe, expect, test } from "bun:test";
import { callHttpTool } from "../../../src/plugins/http-rail/call-tool.ts";
import { fakeNotion } from "../../fake/plugin-apis/notion.ts";
import { useFakeServers } from "../../net/loopback-door.ts";
import { hostDoor, NOTION_IP } from "./_hosts.ts";
import { catalogTool, pluginOf } from "./_setup.ts";

const TOKEN = "ntn_4187003926528gTestTokenForFermixOnly0123456789";
const serve = useFakeServers();
const plugin = pluginOf("notion");
const PARENT = "1f0c2e4a-7b3d-80a1-9c5e-00000000abcd";

function setup(opts: { pages?: number; blocks?: number } = {}) {
  const notion = fakeNotion({ token: TOKEN, ...opts });
  const { origin } = serve(notion.handler);
  return { notion, net: hostDoor({ [NOTION_IP]: origin }).net };
}

async function call(
  net: ReturnType<typeof setup>["net"],
  tool: string,
  args: Record<string, unknown>,
  credential = TOKEN,
) {
  return callHttpTool({ plugin, tool: catalogTool("notion", tool), args, credential, net });
}

describe("notion reads", () => {
  test("search pages with start_cursor in the body; every request carries Notion-Version and the bearer", async () => {
    const { notion, net } = setup({ pages: 5 });
    const filter = { property: "object", value: "page" };
    const out = JSON.parse((await call(net, "notion_search", { query: "Note", filter, page_size: 2 })).content);
    expect(out.truncated).toBe(false);
    expect(
      out.items.map(
        (p: { properties: { title: { title: Array<{ plain_text: string }> } } }) =>
          p.properties.title.title[0]!.plain_text,
      ),
    ).toEqual(["Note 1", "Note 2", "Note 3", "Note 4", "Note 5"]);
    expect(notion.seen).toHaveLength(3);
    for (const req of notion.seen) {
      expect(req.method).toBe("POST");
      expect(req.path).toBe("/v1/search");
      expect(req.headers.get("notion-version")).toBe("2025-09-03");
      expect(req.headers.get("authorization")).toBe(`Bearer ${TOKEN}`);
    }
    expect(JSON.parse(notion.seen[0]!.body)).toEqual({ query: "Note", filter, page_size: 2 });
    const third = JSON.parse(notion.seen[2]!.body);
    expect(third).toEqual({ query: "Note", filter, page_size: 2, start_cursor: notion.state.pages[4]!.id });
  });

  test("search stops at the manifest's max_pages 3 with truncated", async () => {
    const { notion, net } = setup({ pages: 9 });
    const out = JSON.parse((await call(net, "notion_search", { page_size: 2 })).content);
    expect(out.items).toHaveLength(6);
    expect(out.truncated).toBe(true);
    expect(notion.seen).toHaveLength(3);
    expect(JSON.parse(notion.seen[0]!.body)).toEqual({ page_size: 2 }); // an absent query and filter are not sent
  });

  test("block children page by start_cursor in the query, 100 at a time", async () => {
    const { notion, net } = setup({ blocks: 150 });
    const out = JSON.parse((await call(net, "notion_get_blocks", { block_id: PARENT })).content);
    expect(out.items).toHaveLength(150);
    expect(out.truncated).toBe(false);
    expect(notion.seen.map((r) => r.method)).toEqual(["GET", "GET"]);
    expect(notion.seen[0]!.path).toBe(`/v1/blocks/${PARENT}/children`);
    expect(notion.seen[0]!.query.toString()).toBe("page_size=100");
    expect(notion.seen[1]!.query.get("start_cursor")).toBe(notion.state.blocks[100]!.id);
    expect(notion.seen[0]!.body).toBe("");
  });
});

describe("notion writes", () => {
  test("creates a page under a parent page with a title property and children", async () => {
    const { notion, net } = setup();
    const children = [{ object: "block", type: "paragraph", paragraph: { rich_text: [{ text: { content: "Hi" } }] } }];
    const result = await call(net, "notion_create_page", { parent_page_id: PARENT, title: "Plan", children });
    expect(result.isError).toBeUndefined();
    expect(JSON.parse(result.content)).toMatchObject({ object: "page", parent: { type: "page_id", page_id: PARENT } });
    const [req] = notion.seen;
    expect(req!.method).toBe("POST");
    expect(req!.path).toBe("/v1/pages");
    expect(req!.headers.get("notion-version")).toBe("2025-09-03");
    expect(JSON.parse(req!.body)).toEqual({
      parent: { page_id: PARENT },
      properties: { title: { title: [{ text: { content: "Plan" } }] } },
      children,
    });
  });

  test("appends blocks with PATCH", async () => {
    const { notion, net } = setup();
    const children = [{ type: "to_do", to_do: { rich_text: [{ text: { content: "Ship" } }], checked: false } }];
    const result = await call(net, "notion_append_blocks", { block_id: PARENT, children });
    expect(JSON.parse(result.content)).toMatchObject({ object: "list", has_more: false, results: [{ type: "to_do" }] });
    expect(notion.seen[0]!.method).toBe("PATCH");
    expect(notion.seen[0]!.path).toBe(`/v1/blocks/${PARENT}/children`);
    expect(JSON.parse(notion.seen[0]!.body)).toEqual({ children });
  });
});

describe("notion errors, word for word", () => {
  test("401 asks for reconnection (Notion is oauth2)", async () => {
    const { net } = setup();
    expect(await call(net, "notion_get_page", { page_id: PARENT }, "ntn_revoked")).toEqual({
      content: "notion needs reconnection. Run fermix plugins auth reauthorize notion.",
      isError: true,
    });
  });

  test("403 restricted_resource: Notion has no scopes, so the sentence says a permission was not granted", async () => {
    const { notion, net } = setup();
    notion.state.mode = "restricted";
    const result = await call(net, "notion_append_blocks", { block_id: PARENT, children: [] });
    expect(result).toEqual({
      content:
        "notion_append_blocks was refused (HTTP 403): the connected account lacks permission; it needs a permission " +
        "that was not granted; if it was not granted, run fermix plugins auth reauthorize notion. Response: " +
        '{"object":"error","status":403,"code":"restricted_resource","message":"Insufficient permissions for this ' +
        'endpoint.","request_id":"8c3f2a1e-0d4b-4f5e-9a6b-7c8d9e0f1a2b"}',
      isError: true,
    });
  });

  test("429 rate_limited carries Retry-After", async () => {
    const { notion, net } = setup();
    notion.state.mode = "rate_limited";
    expect(await call(net, "notion_search", {})).toEqual({
      content: "notion is rate limiting requests (HTTP 429); retry after 12 seconds (Retry-After: 12).",
      isError: true,
    });
  });

  test("a page not shared with the integration is Notion's 404 body", async () => {
    const { net } = setup();
    const result = await call(net, "notion_get_page", { page_id: "missing" });
    expect(result.content).toBe(
      'notion_get_page failed with HTTP 404: {"object":"error","status":404,"code":"object_not_found","message":' +
        '"Could not find page with ID: missing. Make sure the relevant pages and databases are shared with your ' +
        'integration.","request_id":"8c3f2a1e-0d4b-4f5e-9a6b-7c8d9e0f1a2b"}',
    );
  });
});
