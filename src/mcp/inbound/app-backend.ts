import type { App } from "../../app-contract.ts";
import type { AnyTool, ToolContext } from "../../capabilities/tool.ts";
import { askLocally } from "../../gateway/local-ask.ts";
import { newId } from "../../ids.ts";
import { exposedTools, INBOUND_CALLER } from "./exposed-tools.ts";
import type { InboundBackend } from "./mcp-server.ts";
import type { InboundSettings } from "./settings.ts";

/** Where an MCP client's direct built-in calls are remembered (memory scope, a job's origin): one local conversation. */
const CONVERSATION = { channel: "cli", chat: "mcp" };

/**
 * The inbound server's tools on an App (the daemon's, or `fermix mcp serve`'s own): each call goes through the
 * registry's dispatch with a context built like a turn's, so the sandbox, the policy check, argument validation and
 * the tool's timeout are the very ones a model's call meets. `ask` runs a turn in this App unless another is given.
 */
export function createAppBackend(app: App, settings: InboundSettings, ask?: InboundBackend["ask"]): InboundBackend {
  const tools = exposedTools(app.registry.all(), settings);
  const log = app.log.withTag("mcp");
  return {
    tools,
    inputSchema: (tool: AnyTool) => app.registry.spec(tool).parameters as Record<string, unknown>,
    async callTool(name, args, signal) {
      const ctx: ToolContext = {
        ...app.toolEnvironment(),
        caller: INBOUND_CALLER,
        conversation: CONVERSATION,
        signal,
        now: Date.now,
        notify: (text) => log.info(`${name}: ${text}`),
        // The exposed tools are the whole surface: tool_help and dispatch see nothing more.
        surface: () => tools,
      };
      const outcome = await app.registry.dispatch({ type: "tool_call", id: newId("call"), name, arguments: args }, ctx);
      log.info(`inbound ${name} ${outcome.isError ? "error" : "ok"} in ${outcome.durationMs} ms`);
      return outcome;
    },
    ask: ask ?? ((request, opts) => askLocally(app, request, opts)),
  };
}
