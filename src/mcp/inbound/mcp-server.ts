import { Server } from "@modelcontextprotocol/sdk/server/index.js";
import {
  CallToolRequestSchema,
  type CallToolResult,
  ErrorCode,
  ListToolsRequestSchema,
  McpError,
  type Tool as McpTool,
} from "@modelcontextprotocol/sdk/types.js";
import * as v from "valibot";
import type { ToolOutcome } from "../../capabilities/registry-contract.ts";
import type { AnyTool } from "../../capabilities/tool.ts";
import { redact } from "../../observability/redact.ts";
import { SessionId } from "../../protocol/ask-schemas.ts";
import type { AskDone } from "../../protocol/schemas.ts";
import { VERSION } from "../../version.ts";
import { ASK_TOOL, askExposed } from "./exposed-tools.ts";
import type { InboundSettings } from "./settings.ts";

/** What the inbound server runs its tools on: the stdio command's process, or the daemon itself. */
export type InboundBackend = {
  /** The exposed built-ins, already filtered (exposed-tools.ts). */
  tools: readonly AnyTool[];
  /** A tool's JSON Schema, as the provider wire gets it. */
  inputSchema(tool: AnyTool): Record<string, unknown>;
  /** One built-in call through the registry's dispatch: the sandbox and policy of a turn. Never throws. */
  callTool(name: string, args: Record<string, unknown>, signal: AbortSignal): Promise<ToolOutcome>;
  /** One agent turn at the local owner's operator trust; text deltas as they stream. */
  ask(
    request: { text: string; session_id?: string; timeout_ms: number },
    opts: { signal: AbortSignal; onText: (delta: string) => void; onNotice: (text: string) => void },
  ): Promise<AskDone>;
};

const AskArgs = v.strictObject({
  prompt: v.pipe(v.string(), v.trim(), v.minLength(1, "prompt must not be empty")),
  session: v.optional(SessionId),
});

const ASK_DESCRIPTION =
  "Ask fermix, the owner's personal agent, to do something or answer a question; it runs a full turn with its own " +
  "tools, memory and skills. Pass `session` (any id of letters, digits, '.', '_', ':' or '-') to continue a " +
  "conversation: the same id later sees what was said before. Without it each ask starts fresh.";

/**
 * The MCP server fermix is: the low-level SDK Server (the tools carry JSON Schema from valibot, which McpServer's zod
 * registration cannot take), answering tools/list and tools/call. One instance serves one connection (stdio) or one
 * HTTP request (stateless streamable HTTP).
 */
export function createInboundServer(settings: InboundSettings, backend: InboundBackend): Server {
  const server = new Server(
    { name: settings.serverName, version: settings.serverVersion ?? VERSION },
    {
      capabilities: { tools: {} },
      instructions: "fermix: a personal AI agent. `ask` runs a turn; the other tools are its built-ins, sandboxed.",
    },
  );
  const offered = askExposed(settings);
  const byName = new Map(backend.tools.map((tool) => [tool.name, tool]));

  server.setRequestHandler(ListToolsRequestSchema, async () => {
    const tools: McpTool[] = backend.tools.map((tool) => ({
      name: tool.name,
      description: tool.description,
      inputSchema: { ...backend.inputSchema(tool), type: "object" },
      annotations: { readOnlyHint: tool.readOnly, openWorldHint: tool.policy === "network" },
    }));
    if (offered) {
      tools.unshift({
        name: ASK_TOOL,
        description: settings.tools[ASK_TOOL]?.description_override ?? ASK_DESCRIPTION,
        inputSchema: {
          type: "object",
          properties: {
            prompt: { type: "string", description: "what to ask or tell fermix" },
            session: { type: "string", description: "a conversation id to continue (or start)" },
          },
          required: ["prompt"],
          additionalProperties: false,
        },
        annotations: { readOnlyHint: false, openWorldHint: true },
      });
    }
    return { tools };
  });

  server.setRequestHandler(CallToolRequestSchema, async (request, extra): Promise<CallToolResult> => {
    const { name } = request.params;
    const args = request.params.arguments ?? {};
    const signal = AbortSignal.any([extra.signal, AbortSignal.timeout(settings.requestTimeoutMs)]);
    if (name === ASK_TOOL && offered) {
      const parsed = v.safeParse(AskArgs, args);
      if (!parsed.success) throw new McpError(ErrorCode.InvalidParams, `ask: ${describeIssue(parsed.issues[0])}`);
      const token = extra._meta?.progressToken;
      let progress = 0;
      // Each streamed piece of the answer is one progress step (its text as the message), for a client that asked.
      const notify = (message: string) => {
        if (token === undefined) return;
        progress += 1;
        void extra
          .sendNotification({ method: "notifications/progress", params: { progressToken: token, progress, message } })
          .catch(() => undefined);
      };
      try {
        const done = await backend.ask(
          { text: parsed.output.prompt, session_id: parsed.output.session, timeout_ms: settings.requestTimeoutMs },
          { signal, onText: notify, onNotice: notify },
        );
        return {
          content: [{ type: "text", text: done.response }],
          structuredContent: { response: done.response, session: done.session_id },
        };
      } catch (err) {
        return { isError: true, content: [{ type: "text", text: redact((err as Error)?.message ?? String(err)) }] };
      }
    }
    if (!byName.has(name)) {
      throw new McpError(ErrorCode.InvalidParams, `fermix does not expose a tool named "${name}" ([mcp.inbound])`);
    }
    const outcome = await backend.callTool(name, args, signal);
    return { content: [{ type: "text", text: outcome.content }], isError: outcome.isError === true };
  });
  return server;
}

function describeIssue(issue: v.BaseIssue<unknown>): string {
  const field = issue.path?.map((p) => String(p.key)).join(".");
  return field ? `${field}: ${issue.message}` : issue.message;
}
