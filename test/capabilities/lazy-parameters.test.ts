/**
 * The built-in tools' parameters are built on their first validation (lazySchema, issue 31): a declared tool costs
 * the one-shot ask nothing until it is called, and then refuses bad arguments exactly as before. The wire form is
 * the pre-rendered one either way (prerendered-specs.test.ts checks it against conversion).
 */
import { expect, test } from "bun:test";
import { gitRead } from "../../src/capabilities/builtins/git.ts";
import type { Caller } from "../../src/capabilities/caller.ts";
import { createRegistry } from "../../src/capabilities/registry.ts";
import type { ToolContext } from "../../src/capabilities/tool.ts";
import { convertParameters, toolSpec } from "../../src/capabilities/tool-spec.ts";

const OPERATOR: Caller = { trust: "operator", local: true, attended: true };

test("a tool whose parameters build on first use validates its first call with the same sentence", async () => {
  expect(gitRead.parameters.type).toBe("lazy");
  const registry = createRegistry([gitRead]);
  const ctx = {
    caller: OPERATOR,
    surface: () => [gitRead],
    signal: new AbortController().signal,
  } as unknown as ToolContext;
  const call = (args: Record<string, unknown>) =>
    registry.dispatch({ type: "tool_call", id: "c_1", name: "git_read", arguments: args }, ctx);
  expect((await call({ args: [] })).content).toBe(
    'Invalid arguments for git_read; fix them and call it again:\n- args: args must start with the git subcommand, e.g. ["status"]',
  );
  expect((await call({ args: "status" })).content).toStartWith("Invalid arguments for git_read");
});

test("a lazily built schema converts to the plain object schema, never a $ref", () => {
  const converted = convertParameters(gitRead.parameters);
  expect(converted).toMatchObject({ type: "object", required: ["args"] });
  expect(JSON.stringify(converted)).not.toContain("$ref");
  expect(toolSpec(gitRead).parameters).toEqual(converted);
});
