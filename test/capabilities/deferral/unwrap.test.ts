import { describe, expect, test } from "bun:test";
import { unwrapToolCall } from "../../../src/capabilities/deferral/unwrap.ts";
import type { ToolCallPart } from "../../../src/providers/types.ts";
import { guest, operator, registry, turnFor } from "./_context.ts";

const wrapped = (args: Record<string, unknown>): ToolCallPart => ({
  type: "tool_call",
  id: "call_7",
  name: "tool_call",
  arguments: args,
});

describe("unwrapToolCall", () => {
  test("turns tool_call into a call of the real tool with the same id", () => {
    const call = wrapped({ name: "slack_list_channels", arguments: { limit: "5" } });
    expect(unwrapToolCall(call)).toEqual({
      type: "tool_call",
      id: "call_7",
      name: "slack_list_channels",
      arguments: { limit: "5" },
    });
  });

  test("accepts missing arguments and arguments sent as a JSON string", () => {
    expect(unwrapToolCall(wrapped({ name: " notion_list_users " }))).toMatchObject({
      name: "notion_list_users",
      arguments: {},
    });
    expect(unwrapToolCall(wrapped({ name: "github_get_issue", arguments: '{"issue_number":"3"}' })).arguments).toEqual({
      issue_number: "3",
    });
  });

  test("passes any other call, and a wrapper it cannot read, through unchanged", () => {
    const plain: ToolCallPart = { type: "tool_call", id: "c", name: "tool_help", arguments: { name: "x" } };
    expect(unwrapToolCall(plain)).toBe(plain);
    for (const args of [
      {},
      { name: "" },
      { name: 42 },
      { name: "tool_call", arguments: {} },
      { name: "slack_post_message", arguments: [1, 2] },
      { name: "slack_post_message", arguments: "{not json" },
      { name: "slack_post_message", arguments: "[1]" },
    ]) {
      const call = wrapped(args);
      expect(unwrapToolCall(call)).toBe(call);
    }
  });

  test("after unwrapping, dispatch reports and runs the real tool", async () => {
    const { ctx } = turnFor(operator);
    const outcome = await registry.dispatch(
      unwrapToolCall(wrapped({ name: "notion_retrieve_page", arguments: { page_id: "p1" } })),
      ctx,
    );
    expect(outcome).toMatchObject({
      name: "notion_retrieve_page",
      content: 'notion_retrieve_page ran with {"page_id":"p1"}',
    });
  });

  test("unwrapping grants nothing: a guest's unwrapped call of an owner tool is refused like any other", async () => {
    const { ctx } = turnFor(guest);
    const outcome = await registry.dispatch(
      unwrapToolCall(wrapped({ name: "github_create_issue", arguments: {} })),
      ctx,
    );
    expect(outcome).toMatchObject({
      name: "github_create_issue",
      isError: true,
      content: 'There is no tool named "github_create_issue" available here.',
    });
  });
});
