import type { Message, StopReason, StreamEvent, Usage, UserMessage, WireCall, WireDeps } from "../types.ts";
import { applySchema } from "./_anthropic-schema.ts";
import { CLAUDE_CODE_HEADERS, CLAUDE_CODE_SYSTEM, PLAIN_NAMES, prefixedNames } from "./_claude-code.ts";
import { postWithCredential } from "./_credential.ts";
import { defineWire, fail } from "./_failure.ts";
import { parseJsonData, parseToolArguments } from "./_transport.ts";

const API_VERSION = "2023-06-01";
/** Anthropic requires max_tokens; sized so thinking plus the visible answer fit (spec). */
export const ANTHROPIC_MAX_TOKENS = 16384;
const CACHE = { type: "ephemeral" } as const;

/** Anthropic Messages (`POST {base}/v1/messages`). */
export const anthropicWire = defineWire("anthropic", run);

/** Models that accept `thinking: {type: "adaptive"}`; older ones (Haiku 4.5, 3.x) get no thinking field. */
export function supportsAdaptiveThinking(model: string): boolean {
  return /^claude-(opus|sonnet)-4-[5-9]|^claude-(opus|sonnet)-[5-9]/.test(model);
}

async function* run(call: WireCall, deps: WireDeps): AsyncGenerator<StreamEvent> {
  const { target, request } = call;
  // A Claude subscription sign-in is served only to requests shaped like Claude Code's.
  const oauth = Boolean(target.oauth);
  const names = oauth ? prefixedNames(target.provider, request.tools, historyToolNames(request.messages)) : PLAIN_NAMES;
  const messages = toAnthropicMessages(request.messages, names.toWire);
  // Prompt-cache breakpoints: the system block and the newest message, so each turn reuses the prefix.
  const last = messages.at(-1);
  if (last && Array.isArray(last.content) && last.content.length) {
    last.content[last.content.length - 1] = { ...last.content.at(-1), cache_control: CACHE };
  }
  const body: Record<string, unknown> = {
    model: request.model,
    max_tokens: request.maxOutputTokens ?? ANTHROPIC_MAX_TOKENS,
    messages,
    stream: true,
  };
  const system: Array<Record<string, unknown>> = [];
  if (oauth) system.push({ type: "text", text: CLAUDE_CODE_SYSTEM });
  if (request.system) system.push({ type: "text", text: request.system });
  if (system.length) {
    system[system.length - 1] = { ...system.at(-1), cache_control: CACHE };
    body.system = system;
  }
  if (request.tools?.length) {
    body.tools = request.tools.map((t) => ({
      name: names.toWire(t.name),
      description: t.description,
      input_schema: t.parameters,
    }));
  }
  if (supportsAdaptiveThinking(request.model)) body.thinking = { type: "adaptive" };
  if (request.effort) body.output_config = { effort: request.effort };
  const answerTool = applySchema(body, request, names);

  const headers: Record<string, string> = {
    "anthropic-version": API_VERSION,
    ...target.headers,
    ...(oauth ? CLAUDE_CODE_HEADERS : {}),
  };

  type Block = {
    kind: string;
    id?: string;
    name?: string;
    json: string;
    thinking: string;
    signature: string;
    data?: string;
  };
  const blocks = new Map<number, Block>();
  let stop: string | undefined;
  let answered = false;
  let usage: Usage = { inputTokens: 0, outputTokens: 0 };
  const url = `${target.baseUrl}/v1/messages`;
  const style = { apiKeyHeader: "x-api-key" } as const;
  for await (const sse of postWithCredential(call, deps, url, headers, body, vendorError, style)) {
    const event = parseJsonData(target.provider, sse.data);
    switch (event.type) {
      case "message_start":
        usage = { ...usage, ...inputUsage(event.message?.usage) };
        break;
      case "content_block_start": {
        const b = event.content_block ?? {};
        blocks.set(event.index, {
          kind: b.type,
          id: b.id,
          name: b.name,
          json: "",
          thinking: "",
          signature: "",
          data: b.data,
        });
        break;
      }
      case "content_block_delta": {
        const block = blocks.get(event.index);
        const d = event.delta ?? {};
        if (d.type === "text_delta" && d.text) yield { type: "text_delta", text: d.text };
        else if (block && d.type === "input_json_delta") block.json += d.partial_json ?? "";
        else if (block && d.type === "thinking_delta") block.thinking += d.thinking ?? "";
        else if (block && d.type === "signature_delta") block.signature += d.signature ?? "";
        break;
      }
      case "content_block_stop": {
        const block = blocks.get(event.index);
        // A forced answer tool's input is the structured answer itself, not a call to run (_anthropic-schema.ts).
        if (block?.kind === "tool_use" && answerTool !== undefined && block.name === answerTool) {
          answered = true;
          yield { type: "text_delta", text: block.json || "{}" };
        } else if (block?.kind === "tool_use") {
          yield {
            type: "tool_call",
            call: {
              type: "tool_call",
              id: block.id!,
              name: names.fromWire(block.name!),
              arguments: parseToolArguments(block.json),
            },
          };
        } else if (block?.kind === "thinking") {
          const data = { type: "thinking", thinking: block.thinking, signature: block.signature };
          yield { type: "reasoning", part: { type: "reasoning", wire: "anthropic", data } };
        } else if (block?.kind === "redacted_thinking") {
          yield {
            type: "reasoning",
            part: { type: "reasoning", wire: "anthropic", data: { type: "redacted_thinking", data: block.data } },
          };
        }
        break;
      }
      case "message_delta":
        if (event.delta?.stop_reason) stop = event.delta.stop_reason;
        if (event.usage?.output_tokens !== undefined) usage = { ...usage, outputTokens: event.usage.output_tokens };
        break;
      case "message_stop":
        yield { type: "done", stopReason: stopReason(answered ? "end_turn" : stop), usage };
        return;
      case "error": {
        const type: string = event.error?.type ?? "error";
        const transient = type === "overloaded_error" || type === "api_error";
        fail(
          target.provider,
          transient ? "transient" : type === "rate_limit_error" ? "rate_limit" : "invalid_request",
          `${target.provider}: ${event.error?.message ?? type}`,
          {
            vendorCode: type,
          },
        );
      }
    }
  }
  fail(target.provider, "transient", `${target.provider} closed the stream before the message completed`);
}

function stopReason(stop: string | undefined): StopReason {
  if (stop === "tool_use") return "tool_use";
  // Both are an answer cut short: the output cap, or the context window filling up while it was written.
  if (stop === "max_tokens" || stop === "model_context_window_exceeded") return "length";
  return stop === "end_turn" || stop === "stop_sequence" || stop === undefined ? "stop" : "other";
}

type AnthropicMessage = { role: "user" | "assistant"; content: any[] };

/** Tool results ride in user turns, and consecutive same-role turns must merge (the API requires alternation). */
function toAnthropicMessages(messages: Message[], toolName: (name: string) => string): AnthropicMessage[] {
  const out: AnthropicMessage[] = [];
  const push = (role: "user" | "assistant", blocks: any[]) => {
    if (!blocks.length) return;
    const prev = out.at(-1);
    if (prev && prev.role === role) prev.content.push(...blocks);
    else out.push({ role, content: blocks });
  };
  for (const m of messages) {
    if (m.role === "user") push("user", m.content.map(userBlock));
    else if (m.role === "tool") {
      push("user", [
        {
          type: "tool_result",
          tool_use_id: m.toolCallId,
          content: m.content,
          ...(m.isError ? { is_error: true } : {}),
        },
      ]);
    } else {
      const blocks: any[] = [];
      for (const p of m.content) {
        if (p.type === "reasoning" && p.wire === "anthropic") blocks.push(p.data);
        else if (p.type === "text" && p.text) blocks.push({ type: "text", text: p.text });
        else if (p.type === "tool_call")
          blocks.push({ type: "tool_use", id: p.id, name: toolName(p.name), input: p.arguments });
      }
      push("assistant", blocks);
    }
  }
  return out;
}

function userBlock(part: UserMessage["content"][number]): unknown {
  if (part.type === "text") return { type: "text", text: part.text };
  if (part.type === "image")
    return { type: "image", source: { type: "base64", media_type: part.mime, data: part.data } };
  return { type: "document", source: { type: "base64", media_type: part.mime, data: part.data }, title: part.name };
}

/**
 * Anthropic counts cache reads and writes apart from `input_tokens`; fermix's input is the whole prompt, so they are
 * added back, and the reads are its cached share.
 */
function inputUsage(usage: any): Pick<Usage, "inputTokens" | "cachedInputTokens"> {
  const read = usage?.cache_read_input_tokens ?? 0;
  const written = usage?.cache_creation_input_tokens ?? 0;
  return { inputTokens: (usage?.input_tokens ?? 0) + read + written, cachedInputTokens: read };
}

function historyToolNames(messages: Message[]): string[] {
  return messages.flatMap((m) =>
    m.role === "assistant" ? m.content.flatMap((p) => (p.type === "tool_call" ? [p.name] : [])) : [],
  );
}

function vendorError(body: any): { message?: string; code?: string } {
  return { message: body?.error?.message, code: body?.error?.type };
}
