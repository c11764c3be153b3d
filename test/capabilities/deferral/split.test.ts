import { describe, expect, test } from "bun:test";
import { toolHelp } from "../../../src/capabilities/builtins/tool-help.ts";
import { BRIDGES } from "../../../src/capabilities/deferral/bridges.ts";
import { splitSurface } from "../../../src/capabilities/deferral/split.ts";
import type { AnyTool } from "../../../src/capabilities/tool.ts";
import { call, isDeferrable, operator, registry, turnFor } from "./_context.ts";
import { PLUGIN_TOOLS } from "./_plugin-tools.ts";

const names = (tools: readonly AnyTool[]) => tools.map((t) => t.name);
const wireBytes = (tools: readonly AnyTool[]) =>
  new TextEncoder().encode(JSON.stringify(tools.map((t) => registry.spec(t)))).length;

describe("splitSurface", () => {
  test("enabled: plugin tools leave the wire, built-ins stay, the bridges join", () => {
    const surface = registry.surface(operator);
    const { sent, deferred, callable } = splitSurface(surface, { enabled: true, isDeferrable });
    expect(names(sent)).toEqual(["tool_help", "tool_search", "tool_describe", "tool_call"]);
    expect(deferred).toHaveLength(62);
    expect(deferred.every(isDeferrable)).toBe(true);
    // Everything stays dispatchable: the split only narrows the provider request.
    expect(new Set(callable)).toEqual(new Set([...surface, ...BRIDGES]));
  });

  test("disabled: everything is sent and no bridge appears", () => {
    const surface = registry.surface(operator);
    const { sent, deferred, callable } = splitSurface(surface, { enabled: false, isDeferrable });
    expect(sent).toEqual(surface);
    expect(callable).toEqual(surface);
    expect(deferred).toEqual([]);
    for (const b of BRIDGES) expect(sent).not.toContain(b);
  });

  test("nothing deferrable: everything is sent and no bridge appears", () => {
    const { sent, deferred } = splitSurface([toolHelp], { enabled: true, isDeferrable });
    expect(sent).toEqual([toolHelp]);
    expect(deferred).toEqual([]);
  });

  test("with a weight, a few small deferrable tools stay on the wire: the bridges would cost more", () => {
    const weigh = (t: AnyTool) => JSON.stringify(registry.spec(t)).length;
    const few = PLUGIN_TOOLS.slice(0, 1);
    const kept = splitSurface([toolHelp, ...few], { enabled: true, isDeferrable, weigh });
    expect(kept.deferred).toEqual([]);
    expect(names(kept.sent)).toEqual(names([toolHelp, ...few]));
    const many = splitSurface([toolHelp, ...PLUGIN_TOOLS], { enabled: true, isDeferrable, weigh });
    expect(many.deferred.length).toBe(PLUGIN_TOOLS.length);
  });

  test("with 60+ deferrable tools the provider tool list is at least 80% smaller", () => {
    const { split } = turnFor(operator);
    const without = wireBytes(registry.surface(operator));
    const withDeferral = wireBytes(split.sent);
    expect(PLUGIN_TOOLS.length).toBe(60);
    expect(withDeferral / without).toBeLessThanOrEqual(0.2);
  });

  test("a deferred tool is still callable directly by its own name", async () => {
    const { split, ctx } = turnFor(operator);
    expect(names(split.sent)).not.toContain("github_list_issues");
    const outcome = await call(ctx, "github_list_issues", { owner: "o", repo: "r" });
    expect(outcome).toMatchObject({
      name: "github_list_issues",
      content: 'github_list_issues ran with {"owner":"o","repo":"r"}',
    });
  });
});
