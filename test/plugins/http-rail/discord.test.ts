import { describe, expect, test } from "bun:test";
import { callHttpTool } from "../../../src/plugins/http-rail/call-tool.ts";
import { fakeDiscord } from "../../fake/plugin-apis/discord.ts";
import { useFakeServers } from "../../net/loopback-door.ts";
import { DISCORD_IP, hostDoor } from "./_hosts.ts";
import { catalogTool, pluginOf } from "./_setup.ts";

const TOKEN = "MTEwMDAwMDAwMDAwMDAwMDAwMA.GtEsT1.fermix-discord-bot-token-for-tests-only";
const CHANNEL = "1200000000000000002";
const serve = useFakeServers();
const plugin = pluginOf("discord");

function setup(messages = 0) {
  const discord = fakeDiscord({ token: TOKEN, messages });
  const { origin } = serve(discord.handler);
  return { discord, net: hostDoor({ [DISCORD_IP]: origin }).net };
}

async function call(
  net: ReturnType<typeof setup>["net"],
  tool: string,
  args: Record<string, unknown>,
  credential = TOKEN,
) {
  return callHttpTool({ plugin, tool: catalogTool("discord", tool), args, credential, net });
}

// The catalog's discord is read-only: these are reads only.
describe("discord reads", () => {
  test("the bot's servers, sent with the Bot scheme and with_counts so member counts come back", async () => {
    const { discord, net } = setup();
    const result = await call(net, "discord_list_servers", {});
    expect(JSON.parse(result.content)).toEqual([
      { id: "1100000000000000000", name: "Builders", owner: true, approximate_member_count: 42 },
      { id: "1100000000000000001", name: "Readers", owner: false, approximate_member_count: 43 },
    ]);
    const [req] = discord.seen;
    expect(req!.headers.get("authorization")).toBe(`Bot ${TOKEN}`);
    expect(req!.path).toBe("/api/v10/users/@me/guilds");
    expect(req!.query.toString()).toBe("limit=200&with_counts=true");
  });

  test("a server's channels keep the extract fields", async () => {
    const { discord, net } = setup();
    const result = await call(net, "discord_list_channels", { guild_id: "1100000000000000000" });
    expect(JSON.parse(result.content)).toEqual([
      { id: "1200000000000000001", name: "Text Channels", type: 4, parent_id: null, position: 0 },
      { id: CHANNEL, name: "general", type: 0, parent_id: "1200000000000000001", topic: null, position: 0 },
    ]);
    expect(discord.seen[0]!.path).toBe("/api/v10/guilds/1100000000000000000/channels");
  });

  test("messages page backwards with `before` = the oldest id seen, until an empty page", async () => {
    const { discord, net } = setup(120);
    const out = JSON.parse((await call(net, "discord_get_messages", { channel_id: CHANNEL })).content);
    expect(out.truncated).toBe(false);
    expect(out.items).toHaveLength(120);
    expect(out.items.map((m: { id: string }) => m.id)).toEqual(discord.state.messages.map((m) => m.id));
    expect(Object.keys(out.items[0]).sort()).toEqual(["attachments", "author", "content", "id", "timestamp"]);
    // 50 + 50 + 20, then one more request that comes back empty.
    expect(discord.seen).toHaveLength(4);
    expect(discord.seen.map((r) => r.query.get("before"))).toEqual([
      null,
      discord.state.messages[49]!.id,
      discord.state.messages[99]!.id,
      discord.state.messages[119]!.id,
    ]);
    expect(discord.seen.every((r) => r.query.get("limit") === "50")).toBe(true);
  });

  test("max_pages 4 truncates a long channel; a given `before` is replaced by the cursor, not repeated", async () => {
    const { discord, net } = setup(300);
    const before = discord.state.messages[10]!.id;
    const out = JSON.parse((await call(net, "discord_get_messages", { channel_id: CHANNEL, before })).content);
    expect(out.items).toHaveLength(200);
    expect(out.truncated).toBe(true);
    expect(out.items[0].id).toBe(discord.state.messages[11]!.id);
    expect(discord.seen).toHaveLength(4);
    expect(discord.seen.every((r) => r.query.getAll("before").length === 1)).toBe(true);
  });
});

describe("discord errors, word for word", () => {
  test("401 on an api_key plugin is the API key sentence", async () => {
    const { net } = setup();
    expect(await call(net, "discord_list_servers", {}, "old-token")).toEqual({
      content: "API key rejected — update it with fermix plugins auth set discord",
      isError: true,
    });
  });

  test("403 Missing Access (no Server Members intent): no scopes to name, check the key", async () => {
    const { net } = setup();
    expect(await call(net, "discord_list_members", { guild_id: "1100000000000000000" })).toEqual({
      content:
        "discord_list_members was refused (HTTP 403): the connected account lacks permission; it needs a permission " +
        "that was not granted; check the key's permissions, or replace it with fermix plugins auth set discord. " +
        'Response: {"message":"Missing Access","code":50001}',
      isError: true,
    });
  });

  test("429 carries Retry-After", async () => {
    const { discord, net } = setup();
    discord.state.mode = "rate_limited";
    expect(await call(net, "discord_get_channel", { channel_id: CHANNEL })).toEqual({
      content: "discord is rate limiting requests (HTTP 429); retry after 3 seconds (Retry-After: 3).",
      isError: true,
    });
  });

  test("an unknown channel is Discord's 404 body", async () => {
    const { net } = setup();
    expect((await call(net, "discord_get_channel", { channel_id: "1" })).content).toBe(
      'discord_get_channel failed with HTTP 404: {"message":"Unknown Channel","code":10003}',
    );
  });
});
