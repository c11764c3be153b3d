import { describe, expect, test } from "bun:test";
import { callHttpTool } from "../../../src/plugins/http-rail/call-tool.ts";
import { fakeSlack } from "../../fake/plugin-apis/slack.ts";
import { useFakeServers } from "../../net/loopback-door.ts";
import { catalogTool, door, pluginOf, SLACK_IP } from "./_setup.ts";

const TOKEN = "xoxb-1111111111-2222222222-abcdefghijklmnopqrstuvwx";
const serve = useFakeServers();

function setup(channels = 5, pageSize = 2) {
  const slack = fakeSlack({ token: TOKEN, channels, pageSize });
  const { origin } = serve(slack.handler);
  return { slack, net: door({ [SLACK_IP]: origin }).net };
}

describe("slack conversations.list (cursor pagination)", () => {
  test("follows response_metadata.next_cursor until Slack answers an empty cursor", async () => {
    const { slack, net } = setup(5, 2);
    const tool = catalogTool("slack", "slack_list_channels");
    const result = await callHttpTool({ plugin: pluginOf("slack"), tool, args: {}, credential: TOKEN, net });
    expect(result.isError).toBeUndefined();
    const out = JSON.parse(result.content);
    expect(out.truncated).toBe(false);
    expect(out.items.map((c: { name: string }) => c.name)).toEqual([1, 2, 3, 4, 5].map((i) => `channel-${i}`));
    // extract.fields keeps only what the manifest lists.
    expect(Object.keys(out.items[0]).sort()).toEqual(
      ["id", "is_member", "is_private", "name", "num_members", "purpose", "topic"].sort(),
    );
    expect(slack.seen).toHaveLength(3);
    expect(slack.seen[0]!.query.get("cursor")).toBeNull();
    expect(slack.seen[1]!.query.get("cursor")).toBe(btoa("next:2"));
    expect(slack.seen[2]!.query.get("cursor")).toBe(btoa("next:4"));
    for (const req of slack.seen) {
      expect(req.headers.get("authorization")).toBe(`Bearer ${TOKEN}`);
      expect(req.query.get("types")).toBe("public_channel,private_channel");
      expect(req.query.get("exclude_archived")).toBe("true");
    }
  });

  test("stops at max_pages and says the list is truncated", async () => {
    const { slack, net } = setup(30, 2);
    const tool = catalogTool("slack", "slack_list_channels");
    const result = await callHttpTool({ plugin: pluginOf("slack"), tool, args: {}, credential: TOKEN, net });
    const out = JSON.parse(result.content);
    expect(slack.seen).toHaveLength(10);
    expect(out.items).toHaveLength(20);
    expect(out.truncated).toBe(true);
  });
});

describe("slack's 200-with-ok:false errors", () => {
  // The manifest has no field that says "ok:false is a failure", so the rail cannot judge it; the body goes to the
  // model as is, where Slack's error code ("invalid_auth", "user_not_found") is plain to read.
  test("a rejected token comes back as Slack's own body", async () => {
    const { net } = setup();
    const tool = catalogTool("slack", "slack_list_channels");
    const result = await callHttpTool({
      plugin: pluginOf("slack"),
      tool,
      args: {},
      credential: "xoxb-wrong-token",
      net,
    });
    expect(result).toEqual({ content: '{"ok":false,"error":"invalid_auth"}' });
  });

  test("extract.path that is not in the answer leaves the body as is", async () => {
    const { net } = setup();
    const tool = catalogTool("slack", "slack_user_info");
    const found = await callHttpTool({
      plugin: pluginOf("slack"),
      tool,
      args: { user: "U0000000001" },
      credential: TOKEN,
      net,
    });
    expect(JSON.parse(found.content)).toEqual({
      id: "U0000000001",
      team_id: "T1",
      name: "ada",
      real_name: "Ada L",
      is_bot: false,
    });
    const missing = await callHttpTool({
      plugin: pluginOf("slack"),
      tool,
      args: { user: "U9" },
      credential: TOKEN,
      net,
    });
    expect(missing).toEqual({ content: '{"ok":false,"error":"user_not_found"}' });
  });
});

describe("slack api_key credential", () => {
  test("a missing bot token points at auth set, and nothing is sent", async () => {
    const { slack, net } = setup();
    const tool = catalogTool("slack", "slack_list_channels");
    const result = await callHttpTool({ plugin: pluginOf("slack"), tool, args: {}, net });
    expect(result).toEqual({
      content: "API key rejected — update it with fermix plugins auth set slack",
      isError: true,
    });
    expect(slack.seen).toHaveLength(0);
  });

  test("a required argument missing is a clear error before any request", async () => {
    const { slack, net } = setup();
    const tool = catalogTool("slack", "slack_thread_replies");
    const result = await callHttpTool({
      plugin: pluginOf("slack"),
      tool,
      args: { channel: "C1" },
      credential: TOKEN,
      net,
    });
    expect(result).toEqual({ content: 'slack_thread_replies: missing required argument "ts"', isError: true });
    expect(slack.seen).toHaveLength(0);
  });
});
