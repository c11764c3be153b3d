/**
 * The tools added to the catalog for "Plugins, part 2", each checked on the wire against a scripted fake:
 * the method, path and query the manifest builds, the body it sends, and what extract/paginate return.
 */
import { describe, expect, test } from "bun:test";
import { callHttpTool } from "../../../src/plugins/http-rail/call-tool.ts";
import { json, record, type Seen } from "../../fake/plugin-apis/recorder.ts";
import { useFakeServers } from "../../net/loopback-door.ts";
import { AGENTMAIL_IP, DISCORD_IP, hostDoor, NOTION_IP, X_IP } from "./_hosts.ts";
import { catalogTool, GITHUB_IP, pluginOf, SLACK_IP } from "./_setup.ts";

const serve = useFakeServers();
const CREDENTIAL = "test-credential-0123456789";

/** One fake behind every catalog host: `answer` decides each response; every request is recorded. */
function scripted(answer: (req: Seen, n: number) => Response) {
  const seen: Seen[] = [];
  const { origin } = serve(async (request) => answer(await record(request, seen), seen.length - 1));
  const ips = [GITHUB_IP, SLACK_IP, NOTION_IP, X_IP, DISCORD_IP, AGENTMAIL_IP];
  return { seen, net: hostDoor(Object.fromEntries(ips.map((ip) => [ip, origin]))).net };
}

async function call(net: ReturnType<typeof scripted>["net"], plugin: string, tool: string, args = {}) {
  return callHttpTool({
    plugin: pluginOf(plugin),
    tool: catalogTool(plugin, tool),
    args,
    credential: CREDENTIAL,
    net,
  });
}

describe("github additions", () => {
  test("github_get_me keeps the profile fields", async () => {
    const { seen, net } = scripted(() => json({ login: "ada", name: "Ada", id: 1, node_id: "x", html_url: "h" }));
    const out = JSON.parse((await call(net, "github", "github_get_me")).content);
    expect(out).toEqual({ login: "ada", name: "Ada", html_url: "h" });
    expect(seen[0]!.path).toBe("/user");
    expect(seen[0]!.headers.get("x-github-api-version")).toBe("2022-11-28");
  });

  test("github_list_issues sends the filters and drops unset ones", async () => {
    const { seen, net } = scripted(() => json([{ number: 7, title: "Bug", state: "open", node_id: "n" }]));
    const out = JSON.parse(
      (await call(net, "github", "github_list_issues", { owner: "ada", repo: "alpha", labels: "bug" })).content,
    );
    expect(out).toEqual([{ number: 7, title: "Bug", state: "open" }]);
    expect(seen[0]!.path).toBe("/repos/ada/alpha/issues");
    expect(seen[0]!.query.toString()).toBe("state=open&labels=bug&sort=updated&per_page=30");
  });

  test("github_get_pull_request and github_search_repos hit their endpoints", async () => {
    const { seen, net } = scripted((req) =>
      req.path.startsWith("/search")
        ? json({ total_count: 1, items: [{ full_name: "ada/alpha", stargazers_count: 3, id: 9 }] })
        : json({ number: 4, merged: false, head: { ref: "f" }, id: 2 }),
    );
    const pr = JSON.parse(
      (await call(net, "github", "github_get_pull_request", { owner: "ada", repo: "alpha", pull_number: 4 })).content,
    );
    expect(pr).toEqual({ number: 4, merged: false, head: { ref: "f" } });
    const repos = JSON.parse((await call(net, "github", "github_search_repos", { q: "language:go" })).content);
    expect(repos).toEqual([{ full_name: "ada/alpha", stargazers_count: 3 }]);
    expect(seen.map((r) => r.path)).toEqual(["/repos/ada/alpha/pulls/4", "/search/repositories"]);
    expect(seen[1]!.query.toString()).toBe("q=language%3Ago&per_page=20");
  });
});

describe("notion additions", () => {
  test("notion_update_page PATCHes only the given properties", async () => {
    const { seen, net } = scripted(() => json({ id: "p1", object: "page", url: "u", properties: {} }));
    const properties = { Status: { status: { name: "Done" } } };
    const out = JSON.parse((await call(net, "notion", "notion_update_page", { page_id: "p1", properties })).content);
    expect(out).toEqual({ id: "p1", url: "u", properties: {} });
    expect(seen[0]!.method).toBe("PATCH");
    expect(seen[0]!.path).toBe("/v1/pages/p1");
    expect(JSON.parse(seen[0]!.body)).toEqual({ properties });
    expect(seen[0]!.headers.get("notion-version")).toBe("2025-09-03");
  });

  test("notion_get_data_source and notion_get_me read their objects", async () => {
    const { seen, net } = scripted((req) =>
      req.path === "/v1/users/me"
        ? json({ object: "user", id: "b1", name: "Fermix", type: "bot", bot: {} })
        : json({ object: "data_source", id: "d1", title: [], properties: { Name: { type: "title" } } }),
    );
    const ds = JSON.parse((await call(net, "notion", "notion_get_data_source", { data_source_id: "d1" })).content);
    expect(ds).toEqual({ id: "d1", title: [], properties: { Name: { type: "title" } } });
    const me = JSON.parse((await call(net, "notion", "notion_get_me")).content);
    expect(me).toEqual({ id: "b1", name: "Fermix", type: "bot", bot: {} });
    expect(seen.map((r) => r.path)).toEqual(["/v1/data_sources/d1", "/v1/users/me"]);
  });
});

describe("x additions", () => {
  test("x_get_mentions pages by pagination_token from meta.next_token", async () => {
    const { seen, net } = scripted((_req, n) =>
      n === 0
        ? json({ data: [{ id: "1", text: "a" }], meta: { next_token: "t2" } })
        : json({ data: [{ id: "2", text: "b" }], meta: {} }),
    );
    const out = JSON.parse((await call(net, "x", "x_get_mentions", { user_id: "42" })).content);
    expect(out).toEqual({
      items: [
        { id: "1", text: "a" },
        { id: "2", text: "b" },
      ],
      truncated: false,
    });
    expect(seen.map((r) => r.path)).toEqual(["/2/users/42/mentions", "/2/users/42/mentions"]);
    expect(seen.map((r) => r.query.get("pagination_token"))).toEqual([null, "t2"]);
  });

  test("x_home_timeline stops at two pages", async () => {
    const { seen, net } = scripted((_req, n) => json({ data: [{ id: String(n) }], meta: { next_token: `t${n}` } }));
    const out = JSON.parse((await call(net, "x", "x_home_timeline", { user_id: "42" })).content);
    expect(out).toMatchObject({ truncated: true });
    expect(seen).toHaveLength(2);
    expect(seen[0]!.path).toBe("/2/users/42/timelines/reverse_chronological");
  });

  test("x_get_user, x_get_post, x_repost and x_delete_post", async () => {
    const { seen, net } = scripted((req) => {
      if (req.path.startsWith("/2/users/by/")) return json({ data: { id: "7", username: "ada" } });
      if (req.path === "/2/users/42/retweets") return json({ data: { retweeted: true } });
      if (req.method === "DELETE") return json({ data: { deleted: true } });
      return json({ data: { id: "9", text: "hi" }, includes: { users: [{ username: "ada" }] } });
    });
    expect(JSON.parse((await call(net, "x", "x_get_user", { username: "ada" })).content)).toEqual({
      id: "7",
      username: "ada",
    });
    expect(JSON.parse((await call(net, "x", "x_get_post", { tweet_id: "9" })).content).includes.users).toEqual([
      { username: "ada" },
    ]);
    expect(JSON.parse((await call(net, "x", "x_repost", { user_id: "42", tweet_id: "9" })).content)).toEqual({
      retweeted: true,
    });
    expect(JSON.parse((await call(net, "x", "x_delete_post", { tweet_id: "9" })).content)).toEqual({ deleted: true });
    expect(seen.map((r) => `${r.method} ${r.path}`)).toEqual([
      "GET /2/users/by/username/ada",
      "GET /2/tweets/9",
      "POST /2/users/42/retweets",
      "DELETE /2/tweets/9",
    ]);
    expect(JSON.parse(seen[2]!.body)).toEqual({ tweet_id: "9" });
  });
});

describe("slack, discord and agentmail additions", () => {
  test("slack_team_info unwraps team", async () => {
    const { seen, net } = scripted(() =>
      json({ ok: true, team: { id: "T1", name: "Acme", domain: "acme", icon: {} } }),
    );
    const out = JSON.parse((await call(net, "slack", "slack_team_info")).content);
    expect(out).toEqual({ id: "T1", name: "Acme", domain: "acme" });
    expect(seen[0]!.path).toBe("/api/team.info");
    expect(seen[0]!.headers.get("authorization")).toBe(`Bearer ${CREDENTIAL}`);
  });

  test("discord_get_server asks for counts with the bot token", async () => {
    const { seen, net } = scripted(() => json({ id: "g1", name: "Guild", approximate_member_count: 12, roles: [] }));
    const out = JSON.parse((await call(net, "discord", "discord_get_server", { guild_id: "g1" })).content);
    expect(out).toEqual({ id: "g1", name: "Guild", approximate_member_count: 12 });
    expect(seen[0]!.path).toBe("/api/v10/guilds/g1");
    expect(seen[0]!.query.toString()).toBe("with_counts=true");
    expect(seen[0]!.headers.get("authorization")).toBe(`Bot ${CREDENTIAL}`);
  });

  test("agentmail_list_threads pages by page_token; agentmail_get_thread reads one", async () => {
    const { seen, net } = scripted((req, n) => {
      if (req.path.endsWith("/threads/th1")) return json({ thread_id: "th1", messages: [{ message_id: "m1" }] });
      return n === 0
        ? json({ threads: [{ thread_id: "th1" }], next_page_token: "p2" })
        : json({ threads: [{ thread_id: "th2" }] });
    });
    const list = JSON.parse((await call(net, "agentmail", "agentmail_list_threads", { inbox_id: "a@x.to" })).content);
    expect(list).toEqual({ items: [{ thread_id: "th1" }, { thread_id: "th2" }], truncated: false });
    expect(seen[1]!.query.get("page_token")).toBe("p2");
    const thread = JSON.parse(
      (await call(net, "agentmail", "agentmail_get_thread", { inbox_id: "a@x.to", thread_id: "th1" })).content,
    );
    expect(thread.messages).toEqual([{ message_id: "m1" }]);
    expect(seen[2]!.path).toBe("/v0/inboxes/a%40x.to/threads/th1");
  });
});
