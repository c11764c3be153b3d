import type { Message, StreamEvent, ToolCallPart, WireCall, WireDeps } from "../types.ts";
import { defineWire, fail } from "./_failure.ts";
import { parseJsonData, parseToolArguments, postForEvents } from "./_transport.ts";

/** OpenAI Responses API (`POST {base}/responses`), spoken by OpenAI and xAI. */
export const openaiResponsesWire = defineWire("openai-responses", run);

async function* run(call: WireCall, deps: WireDeps): AsyncGenerator<StreamEvent> {
  const { target, request } = call;
  const body: Record<string, unknown> = {
    model: request.model,
    instructions: request.system,
    input: request.messages.flatMap(toInputItems),
    stream: true,
    // Conversations live in fermix's own store; nothing needs to stay on the provider. Without stored
    // state, reasoning carries over between tool-loop calls only as encrypted content we send back.
    store: false,
    include: ["reasoning.encrypted_content"],
  };
  if (request.tools?.length) {
    body.tools = request.tools.map((t) => ({
      type: "function",
      name: t.name,
      description: t.description,
      parameters: t.parameters,
      strict: false,
    }));
  }
  if (request.effort) body.reasoning = { effort: request.effort };
  if (request.maxOutputTokens) body.max_output_tokens = request.maxOutputTokens;

  const headers: Record<string, string> = { ...target.headers };
  if (target.apiKey) headers.authorization = `Bearer ${target.apiKey}`;

  const calls = new Map<string, { callId: string; name: string; args: string }>();
  let sawToolCall = false;
  for await (const sse of postForEvents(call, deps, `${target.baseUrl}/responses`, headers, body, vendorError)) {
    if (sse.data === "[DONE]") continue;
    const event = parseJsonData(target.provider, sse.data);
    switch (event.type) {
      case "response.output_text.delta":
        if (event.delta) yield { type: "text_delta", text: event.delta };
        break;
      case "response.output_item.added":
        if (event.item?.type === "function_call") {
          calls.set(event.item.id, { callId: event.item.call_id, name: event.item.name, args: "" });
        }
        break;
      case "response.function_call_arguments.delta": {
        const pending = calls.get(event.item_id);
        if (pending) pending.args += event.delta ?? "";
        break;
      }
      case "response.output_item.done": {
        const item = event.item;
        if (item?.type === "function_call") {
          const pending = calls.get(item.id);
          calls.delete(item.id);
          sawToolCall = true;
          const part: ToolCallPart = {
            type: "tool_call",
            id: item.call_id ?? pending?.callId,
            name: item.name ?? pending?.name,
            arguments: parseToolArguments(item.arguments ?? pending?.args ?? ""),
          };
          yield { type: "tool_call", call: part };
        } else if (item?.type === "reasoning" && item.encrypted_content) {
          yield { type: "reasoning", part: { type: "reasoning", wire: "openai-responses", data: item } };
        }
        break;
      }
      case "response.completed":
      case "response.incomplete": {
        const usage = event.response?.usage;
        const truncated = event.type === "response.incomplete";
        yield {
          type: "done",
          stopReason: sawToolCall ? "tool_use" : truncated ? "length" : "stop",
          usage: usage ? { inputTokens: usage.input_tokens ?? 0, outputTokens: usage.output_tokens ?? 0 } : undefined,
        };
        return;
      }
      case "response.failed":
      case "error": {
        const err = event.response?.error ?? event.error ?? event;
        const code: string | undefined = err?.code ?? undefined;
        const overloaded = /overload|server_error|unavailable|rate/i.test(`${code} ${err?.message}`);
        fail(
          target.provider,
          overloaded ? "transient" : "invalid_request",
          `${target.provider}: ${err?.message ?? "the response failed"}`,
          {
            vendorCode: code,
          },
        );
      }
    }
  }
  fail(target.provider, "transient", `${target.provider} closed the stream before the response completed`);
}

function toInputItems(message: Message): unknown[] {
  switch (message.role) {
    case "user":
      return [
        {
          role: "user",
          content: message.content.map((p) =>
            p.type === "text"
              ? { type: "input_text", text: p.text }
              : { type: "input_image", image_url: `data:${p.mime};base64,${p.data}`, detail: "auto" },
          ),
        },
      ];
    case "tool":
      return [{ type: "function_call_output", call_id: message.toolCallId, output: message.content }];
    case "assistant": {
      const items: unknown[] = [];
      const text = message.content.flatMap((p) => (p.type === "text" ? [p.text] : [])).join("");
      for (const part of message.content) {
        if (part.type === "reasoning" && part.wire === "openai-responses") items.push(part.data);
      }
      if (text) items.push({ type: "message", role: "assistant", content: [{ type: "output_text", text }] });
      for (const part of message.content) {
        if (part.type === "tool_call") {
          items.push({
            type: "function_call",
            call_id: part.id,
            name: part.name,
            arguments: JSON.stringify(part.arguments),
          });
        }
      }
      return items;
    }
  }
}

function vendorError(body: any): { message?: string; code?: string } {
  const err = body?.error;
  return { message: typeof err?.message === "string" ? err.message : undefined, code: err?.code ?? err?.type };
}
