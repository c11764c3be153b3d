import { describe, expect, test } from "bun:test";
import { callHttpTool } from "../../../src/plugins/http-rail/call-tool.ts";
import { fakeX } from "../../fake/plugin-apis/x.ts";
import { useFakeServers } from "../../net/loopback-door.ts";
import { hostDoor, X_IP } from "./_hosts.ts";
import { catalogTool, pluginOf } from "./_setup.ts";

const TOKEN = "bWRjT0xkc2VzT1B4c3Rlc3QtdG9rZW4tZm9yLWZlcm1peDoxNzUwMDAwMDAwMDAwOjE6MTphdDox";
const serve = useFakeServers();
const plugin = pluginOf("x");
const FIELDS = "created_at,author_id,public_metrics,conversation_id";

function setup(posts = 0) {
  const x = fakeX({ token: TOKEN, posts });
  const { origin } = serve(x.handler);
  return { x, net: hostDoor({ [X_IP]: origin }).net };
}

async function call(
  net: ReturnType<typeof setup>["net"],
  tool: string,
  args: Record<string, unknown>,
  credential = TOKEN,
) {
  return callHttpTool({ plugin, tool: catalogTool("x", tool), args, credential, net });
}

describe("x reads", () => {
  test("users/me is unwrapped from `data` by extract.path", async () => {
    const { x, net } = setup();
    const result = await call(net, "x_get_me", {});
    expect(JSON.parse(result.content)).toEqual(x.me);
    expect(x.seen[0]!.headers.get("authorization")).toBe(`Bearer ${TOKEN}`);
  });

  test("recent search pages by next_token until meta has none; posts are joined from `data`", async () => {
    const { x, net } = setup(25);
    const out = JSON.parse((await call(net, "x_search_recent", { query: "from:ada_builds -is:retweet" })).content);
    expect(out.truncated).toBe(false);
    expect(out.items).toHaveLength(25);
    expect(out.items[24].text).toBe("post number 25");
    expect(x.seen).toHaveLength(3);
    const [first, , third] = x.seen;
    expect(first!.path).toBe("/2/tweets/search/recent");
    expect(first!.query.toString()).toBe(
      `query=from%3Aada_builds+-is%3Aretweet&max_results=10&tweet.fields=${encodeURIComponent(FIELDS)}`,
    );
    expect(third!.query.get("next_token")).toBe("b26v89c19zqg8o3f20");
  });

  test("a user's timeline pages by pagination_token and stops at max_pages 3", async () => {
    const { x, net } = setup(40);
    const out = JSON.parse((await call(net, "x_get_user_posts", { user_id: x.me.id, max_results: 5 })).content);
    expect(out).toMatchObject({ truncated: true });
    expect(out.items).toHaveLength(15);
    expect(x.seen.map((r) => r.path)).toEqual(Array(3).fill(`/2/users/${x.me.id}/tweets`));
    expect(x.seen.map((r) => r.query.get("pagination_token"))).toEqual([
      null,
      "b26v89c19zqg8o3f5",
      "b26v89c19zqg8o3f10",
    ]);
    expect(x.seen.every((r) => r.query.get("next_token") === null)).toBe(true);
  });

  test("no results: X sends no `data`, only meta, and that answer goes back as is", async () => {
    const { net } = setup(0);
    const out = JSON.parse((await call(net, "x_search_recent", { query: "nothing" })).content);
    expect(out).toEqual({ meta: { result_count: 0 } });
  });
});

describe("x writes", () => {
  test("a post is a POST with {text}; 201 is the manifest's success", async () => {
    const { x, net } = setup();
    const result = await call(net, "x_create_post", { text: "hello from fermix" });
    expect(JSON.parse(result.content)).toEqual({
      data: { id: "1900000000000000000", text: "hello from fermix", edit_history_tweet_ids: ["1900000000000000000"] },
    });
    expect(x.seen[0]!.method).toBe("POST");
    expect(x.seen[0]!.path).toBe("/2/tweets");
    expect(JSON.parse(x.seen[0]!.body)).toEqual({ text: "hello from fermix" });
  });

  test("a reply nests in_reply_to_tweet_id under `reply`", async () => {
    const { x, net } = setup();
    await call(net, "x_reply", { in_reply_to_tweet_id: "1800000000000000000", text: "agreed" });
    expect(JSON.parse(x.seen[0]!.body)).toEqual({
      text: "agreed",
      reply: { in_reply_to_tweet_id: "1800000000000000000" },
    });
  });

  test("a like is 200 {data: {liked: true}}", async () => {
    const { x, net } = setup();
    const result = await call(net, "x_like", { user_id: x.me.id, tweet_id: "1800000000000000000" });
    expect(JSON.parse(result.content)).toEqual({ data: { liked: true } });
    expect(x.seen[0]!.path).toBe(`/2/users/${x.me.id}/likes`);
    expect(JSON.parse(x.seen[0]!.body)).toEqual({ tweet_id: "1800000000000000000" });
  });
});

describe("x errors, word for word", () => {
  test("401 asks for reconnection", async () => {
    const { net } = setup();
    expect(await call(net, "x_get_me", {}, "expired")).toEqual({
      content: "x needs reconnection. Run fermix plugins auth reauthorize x.",
      isError: true,
    });
  });

  test("403 names the tool's required scopes", async () => {
    const { x, net } = setup();
    x.state.mode = "forbidden";
    expect(await call(net, "x_create_post", { text: "t" })).toEqual({
      content:
        "x_create_post was refused (HTTP 403): the connected account lacks permission; it needs tweet.read, " +
        "tweet.write, users.read; if it was not granted, run fermix plugins auth reauthorize x. Response: " +
        '{"title":"Forbidden","type":"about:blank","status":403,"detail":"You are not permitted to perform this action."}',
      isError: true,
    });
  });

  test("429 with Retry-After", async () => {
    const { x, net } = setup();
    x.state.mode = "rate_limited";
    x.state.retryAfter = "900";
    expect(await call(net, "x_search_recent", { query: "q" })).toEqual({
      content: "x is rate limiting requests (HTTP 429); retry after 900 seconds (Retry-After: 900).",
      isError: true,
    });
  });

  // X itself usually sends only x-rate-limit-reset (hyphenated, epoch seconds) and no Retry-After.
  test("429 as X usually sends it (x-rate-limit-reset, no Retry-After) names the reset time", async () => {
    const { x, net } = setup();
    x.state.mode = "rate_limited";
    expect((await call(net, "x_search_recent", { query: "q" })).content).toBe(
      `x is rate limiting requests (HTTP 429); retry after ${new Date(1750000000 * 1000).toISOString()}.`,
    );
  });

  test("an out-of-range max_results is refused before any request, naming the bound", async () => {
    const { x, net } = setup();
    const result = await call(net, "x_get_user_posts", { user_id: "1", max_results: 3 });
    expect(result.content).toBe('x_get_user_posts: argument "max_results" must be at least 5 (got number 3)');
    expect(x.seen).toEqual([]);
  });

  test("what the schema lets through and X refuses is X's 400 body, word for word", async () => {
    const { net } = setup();
    // The same tool with its bound taken out of the schema, so the value reaches X.
    const tool = structuredClone(catalogTool("x", "x_get_user_posts"));
    delete (tool.parameters!.properties!.max_results as Record<string, unknown>).minimum;
    const result = await callHttpTool({ plugin, tool, args: { user_id: "1", max_results: 3 }, credential: TOKEN, net });
    expect(result.content).toBe(
      'x_get_user_posts failed with HTTP 400: {"errors":[{"parameters":{"max_results":["3"]},"message":"The ' +
        '`max_results` query parameter value [3] is not between 5 and 100"}],"title":"Invalid Request","detail":' +
        '"One or more parameters to your request was invalid.","type":"https://api.twitter.com/2/problems/invalid-request"}',
    );
  });
});
