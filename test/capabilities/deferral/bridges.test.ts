import { describe, expect, test } from "bun:test";
import { toolHelp } from "../../../src/capabilities/builtins/tool-help.ts";
import { BRIDGES } from "../../../src/capabilities/deferral/bridges.ts";
import { splitSurface } from "../../../src/capabilities/deferral/split.ts";
import { call, context, guest, isDeferrable, operator, registry, turnFor } from "./_context.ts";
import { PLUGIN_TOOLS } from "./_plugin-tools.ts";

const top = (content: string) => content.split("\n")[0]!.split(" — ")[0];

describe("tool_search", () => {
  const { ctx } = turnFor(operator);

  test.each([
    ["list slack channels", "slack_list_channels"],
    ["open a pull request", "github_create_pull_request"],
    ["post a message in slack", "slack_post_message"],
    ["create a notion page", "notion_create_page"],
    ["comment on a github issue", "github_add_issue_comment"],
    ["react with an emoji", "slack_add_reaction"],
    ["query rows of a notion database", "notion_query_database"],
    ["merge PR with squash", "github_merge_pull_request"],
    ["read file from repo", "github_get_file_contents"],
    ["which files changed in the pull request", "github_get_pull_request_files"],
  ])("%p finds %p first", async (query, expected) => {
    const outcome = await call(ctx, "tool_search", { query });
    expect(outcome.isError).toBeFalsy();
    expect(top(outcome.content)).toBe(expected);
  });

  test("answers ranked `name — description` lines and points at the next step", async () => {
    const outcome = await call(ctx, "tool_search", { query: "list slack channels", limit: 3 });
    const lines = outcome.content.split("\n\n")[0]!.split("\n");
    expect(lines).toHaveLength(3);
    for (const l of lines) expect(l).toMatch(/^slack_\w+ — .+/);
    expect(lines[0]).toBe(
      "slack_list_channels — List public and private channels in the Slack workspace, with member counts.",
    );
    expect(outcome.content).toContain("tool_describe");
  });

  test("limit is capped at 20 by the schema", async () => {
    const outcome = await call(ctx, "tool_search", { query: "github", limit: 21 });
    expect(outcome.isError).toBe(true);
    expect(outcome.content).toContain("limit");
    const twenty = await call(ctx, "tool_search", { query: "github repository", limit: 20 });
    expect(twenty.content.split("\n\n")[0]!.split("\n")).toHaveLength(20);
  });

  test("says so when nothing matches, or when nothing is deferred", async () => {
    expect((await call(ctx, "tool_search", { query: "calendar" })).content).toContain(
      'No deferred tool matches "calendar"',
    );
    // A context without `deferred` (deferral off, or a caller the lead has not wired yet).
    const bare = context(operator, [...registry.surface(operator), ...BRIDGES]);
    expect((await call(bare, "tool_search", { query: "slack" })).content).toContain("No tools are deferred here");
  });
});

test("tool_search follows the deferred list when the tools change (a plugin installed or removed)", async () => {
  const { split } = turnFor(operator);
  const slackOnly = split.deferred.filter((t) => t.name.startsWith("slack_"));
  const narrow = await call(context(operator, split.callable, slackOnly), "tool_search", {
    query: "open a pull request",
  });
  expect(narrow.content).not.toContain("github_");
  const full = await call(context(operator, split.callable, [...split.deferred]), "tool_search", {
    query: "open a pull request",
  });
  expect(top(full.content)).toBe("github_create_pull_request");
});

describe("tool_describe", () => {
  const { ctx } = turnFor(operator);

  test("returns the tool's full schema in the registry's spec shape", async () => {
    const outcome = await call(ctx, "tool_describe", { name: "github_create_pull_request" });
    expect(outcome.isError).toBeFalsy();
    const tool = PLUGIN_TOOLS.find((t) => t.name === "github_create_pull_request")!;
    const spec = JSON.parse(outcome.content);
    expect(spec).toEqual(JSON.parse(JSON.stringify(registry.spec(tool))));
    expect(spec.parameters.required).toEqual(["owner", "repo", "title", "head", "base"]);
    expect(spec.parameters.properties.head.description).toBe("Branch with the changes.");
  });

  test("an unknown name gets the closest names; a non-deferred tool is called directly", async () => {
    const unknown = await call(ctx, "tool_describe", { name: "slack_list_channel" });
    expect(unknown.isError).toBe(true);
    expect(unknown.content).toContain("Closest: slack_list_channels");
    const inline = await call(ctx, "tool_describe", { name: "tool_help" });
    expect(inline.content).toContain("tool_help is not deferred");
  });
});

describe("tool_call without the loop's unwrap", () => {
  const { ctx } = turnFor(operator);

  test("dispatches the target through the same surface and argument checks", async () => {
    const ok = await call(ctx, "tool_call", {
      name: "slack_post_message",
      arguments: { channel_id: "C1", text: "hi" },
    });
    expect(ok).toMatchObject({
      isError: undefined,
      content: 'slack_post_message ran with {"channel_id":"C1","text":"hi"}',
    });
    const bad = await call(ctx, "tool_call", { name: "slack_post_message", arguments: { text: "hi" } });
    expect(bad.isError).toBe(true);
    expect(bad.content).toContain("Invalid arguments for slack_post_message");
  });

  test("refuses to wrap itself", async () => {
    const outcome = await call(ctx, "tool_call", { name: "tool_call", arguments: {} });
    expect(outcome).toMatchObject({ isError: true, content: "tool_call cannot run itself; name the tool." });
  });
});

describe("a guest", () => {
  test("gets bridges over only the deferred tools its trust allows", async () => {
    const { split, ctx } = turnFor(guest);
    expect(split.deferred.map((t) => t.name)).toEqual(["bookmarks_search", "bookmarks_recent"]);
    const outcome = await call(ctx, "tool_search", {
      query: "slack channels github pull request notion bookmarks",
      limit: 20,
    });
    const found = outcome.content
      .split("\n\n")[0]!
      .split("\n")
      .map((l) => l.split(" — ")[0]);
    expect(found.sort()).toEqual(["bookmarks_recent", "bookmarks_search"]);
  });

  test("cannot search, describe or call a deferred tool outside its surface, even if handed the full catalog", async () => {
    const owner = splitSurface(registry.surface(operator), { enabled: true, isDeferrable });
    const guestSurface = turnFor(guest).split.callable;
    // A context that wrongly carries the operator's deferred list: the surface still bounds every bridge.
    const ctx = context(guest, guestSurface, owner.deferred);
    const search = await call(ctx, "tool_search", { query: "list slack channels", limit: 20 });
    expect(search.content).not.toContain("slack_");
    const describe = await call(ctx, "tool_describe", { name: "slack_list_channels" });
    expect(describe.isError).toBe(true);
    // Nothing beyond the name the guest typed itself: no schema, no description, no other owner tool.
    expect(describe.content).toStartWith('There is no deferred tool named "slack_list_channels" available here.');
    expect(describe.content.replace("slack_list_channels", "")).not.toMatch(/slack|github|notion|Slack workspace/);
    const run = await call(ctx, "tool_call", { name: "slack_list_channels", arguments: {} });
    expect(run).toMatchObject({
      isError: true,
      content: 'There is no tool named "slack_list_channels" available here.',
    });
  });
});

test("the bridges are read-only meta tools except tool_call, whose target may write", () => {
  const { split } = turnFor(operator);
  const bridges = split.sent.filter((t) => t.name.startsWith("tool_") && t !== toolHelp);
  expect(bridges.map((t) => [t.name, t.policy, t.readOnly])).toEqual([
    ["tool_search", "meta", true],
    ["tool_describe", "meta", true],
    ["tool_call", "meta", false],
  ]);
});
