import { toolHelp } from "../../../src/capabilities/builtins/tool-help.ts";
import type { Caller } from "../../../src/capabilities/caller.ts";
import type { DeferralContext } from "../../../src/capabilities/deferral/bridges.ts";
import { splitSurface } from "../../../src/capabilities/deferral/split.ts";
import { createRegistry } from "../../../src/capabilities/registry.ts";
import type { AnyTool } from "../../../src/capabilities/tool.ts";
import { GUEST_PLUGIN_TOOLS, PLUGIN_TOOLS } from "./_plugin-tools.ts";

export const operator: Caller = { trust: "operator", local: true, attended: true };
export const guest: Caller = { trust: "guest", local: false, attended: true };

const plugins = new Set<AnyTool>([...PLUGIN_TOOLS, ...GUEST_PLUGIN_TOOLS]);
export const isDeferrable = (t: AnyTool) => plugins.has(t);

/** One registry as the app would hold it: a built-in plus 62 plugin tools. */
export const registry = createRegistry([toolHelp, ...PLUGIN_TOOLS, ...GUEST_PLUGIN_TOOLS]);

/** The turn wiring the lead will do: split the caller's surface, dispatch from `callable`. */
export function turnFor(caller: Caller, enabled = true) {
  const split = splitSurface(registry.surface(caller), { enabled, isDeferrable });
  return { split, ctx: context(caller, split.callable, split.deferred) };
}

/** Only what the bridges and dispatch read; the rest of ToolContext is never touched here. */
export function context(caller: Caller, surface: readonly AnyTool[], deferred?: readonly AnyTool[]): DeferralContext {
  return {
    caller,
    surface: () => surface,
    deferred,
    signal: new AbortController().signal,
  } as unknown as DeferralContext;
}

export async function call(ctx: DeferralContext, name: string, args: Record<string, unknown>) {
  return registry.dispatch({ type: "tool_call", id: "call_1", name, arguments: args }, ctx);
}
