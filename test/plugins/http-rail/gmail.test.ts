import { describe, expect, test } from "bun:test";
import { callHttpTool } from "../../../src/plugins/http-rail/call-tool.ts";
import { fakeGmail } from "../../fake/plugin-apis/gmail.ts";
import { useFakeServers } from "../../net/loopback-door.ts";
import { catalogTool, door, GOOGLE_IP, pluginOf } from "./_setup.ts";

const TOKEN = "ya29.a0AfB_byC-test-token-0123456789abcdefghijklmn";
const serve = useFakeServers();
const plugin = pluginOf("gmail");

function setup(messages = 5) {
  const gmail = fakeGmail({ token: TOKEN, messages });
  const { origin } = serve(gmail.handler);
  return { gmail, net: door({ [GOOGLE_IP]: origin }).net };
}

async function search(net: ReturnType<typeof setup>["net"], args: Record<string, unknown> = {}) {
  return callHttpTool({ plugin, tool: catalogTool("gmail", "gmail_search_messages"), args, credential: TOKEN, net });
}

describe("gmail messages.list", () => {
  test("pages by nextPageToken; the last page has no token", async () => {
    const { gmail, net } = setup(5);
    const out = JSON.parse((await search(net, { q: "is:unread", maxResults: 2 })).content);
    expect(out).toEqual({
      items: [1, 2, 3, 4, 5].map((i) => ({ id: `m${i}`, threadId: `t${i}` })),
      truncated: false,
    });
    expect(gmail.seen.map((r) => r.query.get("pageToken"))).toEqual([null, "2", "4"]);
    expect(gmail.seen.every((r) => r.query.get("q") === "is:unread")).toBe(true);
  });

  test("max_pages 3 from the manifest truncates", async () => {
    const { gmail, net } = setup(10);
    const out = JSON.parse((await search(net, { maxResults: 2 })).content);
    expect(out.items).toHaveLength(6);
    expect(out.truncated).toBe(true);
    expect(gmail.seen).toHaveLength(3);
  });
});

describe("google 403 by reason", () => {
  const cases: Array<[string, string]> = [
    [
      "ACCESS_TOKEN_SCOPE_INSUFFICIENT",
      "gmail is missing a permission gmail_search_messages needs (insufficientPermissions): it needs " +
        "https://www.googleapis.com/auth/gmail.readonly. Run fermix plugins auth reauthorize gmail and grant it.",
    ],
    [
      "insufficientPermissions",
      "gmail is missing a permission gmail_search_messages needs (insufficientPermissions): it needs " +
        "https://www.googleapis.com/auth/gmail.readonly. Run fermix plugins auth reauthorize gmail and grant it.",
    ],
    [
      "insufficientFilePermissions",
      "gmail has no access to that item (insufficientFilePermissions): the connected account cannot open it; " +
        "ask its owner to share it, or choose another.",
    ],
    [
      "appNotAuthorizedToFile",
      "gmail has no access to that item (appNotAuthorizedToFile): the connected account cannot open it; " +
        "ask its owner to share it, or choose another.",
    ],
    [
      "forbiddenForNonOrganizer",
      "Only the event's organizer can do that (forbiddenForNonOrganizer); the connected account is not the organizer.",
    ],
    ["rateLimitExceeded", "gmail is rate limited (rateLimitExceeded); wait a while before trying again."],
    ["userRateLimitExceeded", "gmail is rate limited (userRateLimitExceeded); wait a while before trying again."],
    ["dailyLimitExceeded", "gmail is rate limited (dailyLimitExceeded); wait a while before trying again."],
    ["quotaExceeded", "gmail is rate limited (quotaExceeded); wait a while before trying again."],
  ];
  for (const [reason, sentence] of cases) {
    test(reason, async () => {
      const { gmail, net } = setup();
      gmail.state.reason = reason;
      expect(await search(net)).toEqual({ content: sentence, isError: true });
    });
  }

  test("a rate-limit reason carries Retry-After when Google sends one", async () => {
    const { gmail, net } = setup();
    gmail.state.reason = "userRateLimitExceeded";
    gmail.state.retryAfter = "17";
    expect((await search(net)).content).toBe(
      "gmail is rate limited (userRateLimitExceeded); retry after 17 seconds (Retry-After: 17).",
    );
  });

  test("an unknown reason falls back to the permission sentence with the body", async () => {
    const { gmail, net } = setup();
    gmail.state.reason = "domainPolicy";
    const result = await search(net);
    expect(result.isError).toBe(true);
    expect(result.content).toStartWith(
      "gmail_search_messages was refused (HTTP 403): the connected account lacks permission; it needs " +
        "https://www.googleapis.com/auth/gmail.readonly; if it was not granted, run fermix plugins auth reauthorize gmail. Response: ",
    );
    expect(result.content).toContain('"reason":"domainPolicy"');
  });

  test("an oauth 401 on a read with no refresh given asks for reconnection", async () => {
    const { net } = setup();
    const tool = catalogTool("gmail", "gmail_list_labels");
    const result = await callHttpTool({ plugin, tool, args: {}, credential: "ya29.expired", net });
    expect(result).toEqual({
      content: "gmail needs reconnection. Run fermix plugins auth reauthorize gmail.",
      isError: true,
    });
  });
});
