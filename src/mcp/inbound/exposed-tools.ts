import type { Caller, PolicyClass } from "../../capabilities/caller.ts";
import { mayUse } from "../../capabilities/policy.ts";
import type { AnyTool } from "../../capabilities/tool.ts";
import type { InboundClass, InboundSettings } from "./settings.ts";

/** The agent-turn tool every inbound server offers unless [mcp.inbound] denied_tools names it. */
export const ASK_TOOL = "ask";

/**
 * The owner on this machine, as an MCP client acts for them: operator trust like the CLI, but no working directory
 * (a client launches us from wherever it likes, often `/`), so only the sandbox's configured roots count.
 */
export const INBOUND_CALLER: Caller = { trust: "operator", local: true, attended: true };

/**
 * A built-in's coarse class. Delegation runs agents that may use exec, so it is exec; asking the owner for a
 * directory needs the chat the request came from, which an MCP client has not, so it is never exposed.
 */
export function inboundClass(tool: AnyTool): InboundClass | undefined {
  const byPolicy: Partial<Record<PolicyClass, InboundClass>> = {
    exec: "exec",
    delegation: "exec",
    network: "network",
    plugin: "external_api",
  };
  if (tool.policy === "approval") return undefined;
  return byPolicy[tool.policy] ?? (tool.readOnly ? "read_only" : "read_write");
}

/**
 * Which built-ins an MCP client sees and may call. denied_tools and `[mcp.inbound.tools.<t>] exposed = false` always
 * win; allowed_tools (or `exposed = true`) adds a tool whatever its class, and is the only way to expose an exec-class
 * tool such as shell — listing "exec" in expose_policy_classes is not enough. Chat-only tools (react,
 * send_attachment) never are: there is no chat.
 */
export function exposedTools(all: readonly AnyTool[], settings: InboundSettings): AnyTool[] {
  if (!settings.exposeKinds.includes("builtin")) return [];
  const allowed = new Set(settings.allowedTools);
  const denied = new Set(settings.deniedTools);
  return all.flatMap((tool) => {
    const perTool = settings.tools[tool.name];
    if (denied.has(tool.name) || perTool?.exposed === false) return [];
    if (tool.forChannel || !mayUse(tool, INBOUND_CALLER)) return [];
    const cls = inboundClass(tool);
    if (!cls) return [];
    const explicit = allowed.has(tool.name) || perTool?.exposed === true;
    const byClass = cls !== "exec" && settings.exposeClasses.includes(cls);
    if (!explicit && !byClass) return [];
    const description = perTool?.description_override;
    return [description ? { ...tool, description } : tool];
  });
}

/** Whether the ask tool is offered. */
export function askExposed(settings: InboundSettings): boolean {
  return !settings.deniedTools.includes(ASK_TOOL) && settings.tools[ASK_TOOL]?.exposed !== false;
}
