import { chatResponseFormat } from "../structured-output.ts";
import type { Message, StopReason, StreamEvent, Usage, UserMessage, WireCall, WireDeps } from "../types.ts";
import { defineWire, fail } from "./_failure.ts";
import { parseJsonData, parseToolArguments, postForEvents } from "./_transport.ts";

/** Chat Completions (`POST {base}/chat/completions`), spoken by OpenRouter, Mistral and Ollama. */
export const openaiChatWire = defineWire("openai-chat", run);

async function* run(call: WireCall, deps: WireDeps): AsyncGenerator<StreamEvent> {
  const { target, request } = call;
  const messages: unknown[] = [];
  if (request.system) messages.push({ role: "system", content: request.system });
  for (const m of request.messages) messages.push(...toChatMessages(m, target.provider));
  const body: Record<string, unknown> = {
    model: request.model,
    messages,
    stream: true,
    stream_options: { include_usage: true },
  };
  if (request.tools?.length) {
    body.tools = request.tools.map((t) => ({
      type: "function",
      function: { name: t.name, description: t.description, parameters: t.parameters },
    }));
  }
  if (request.maxOutputTokens) body.max_tokens = request.maxOutputTokens;
  // OpenRouter, Mistral and Ollama's OpenAI-compatible endpoint all take the json_schema response format.
  if (request.schema) body.response_format = chatResponseFormat(request.schema);

  const headers: Record<string, string> = { ...target.headers };
  if (target.apiKey) headers.authorization = `Bearer ${target.apiKey}`;

  // Tool calls stream as fragments keyed by index; the id and name come once, arguments in pieces.
  const pending = new Map<number, { id: string; name: string; args: string }>();
  let finish: string | undefined;
  let usage: Usage | undefined;
  let completed = false;
  for await (const sse of postForEvents(call, deps, `${target.baseUrl}/chat/completions`, headers, body, vendorError)) {
    if (sse.data === "[DONE]") {
      completed = true;
      break;
    }
    const chunk = parseJsonData(target.provider, sse.data);
    // OpenRouter reports upstream failures inside a 200 stream.
    if (chunk.error) {
      const status = Number(chunk.error.code);
      fail(
        target.provider,
        status >= 500 || status === 429 ? "transient" : "invalid_request",
        `${target.provider}: ${chunk.error.message ?? "upstream error"}`,
      );
    }
    if (chunk.usage) {
      usage = chatUsage(chunk.usage);
    }
    const choice = chunk.choices?.[0];
    if (!choice) continue;
    const delta = choice.delta ?? {};
    if (typeof delta.content === "string" && delta.content) yield { type: "text_delta", text: delta.content };
    for (const fragment of delta.tool_calls ?? []) {
      const index = fragment.index ?? 0;
      const entry = pending.get(index) ?? { id: "", name: "", args: "" };
      if (fragment.id) entry.id = fragment.id;
      if (fragment.function?.name) entry.name += fragment.function.name;
      if (fragment.function?.arguments) entry.args += fragment.function.arguments;
      pending.set(index, entry);
    }
    if (choice.finish_reason) finish = choice.finish_reason;
  }
  // Ollama and some proxies end the stream without [DONE]; a finish_reason is proof enough of completion.
  if (!completed && !finish) {
    fail(target.provider, "transient", `${target.provider} closed the stream before the response completed`);
  }
  for (const [index, entry] of [...pending.entries()].sort((a, b) => a[0] - b[0])) {
    yield {
      type: "tool_call",
      call: {
        type: "tool_call",
        id: entry.id || `call_${index}`,
        name: entry.name,
        arguments: parseToolArguments(entry.args),
      },
    };
  }
  yield { type: "done", stopReason: stopReason(finish, pending.size > 0), usage };
}

function stopReason(finish: string | undefined, hadTools: boolean): StopReason {
  if (hadTools || finish === "tool_calls") return "tool_use";
  if (finish === "length") return "length";
  return finish === "stop" || finish === undefined ? "stop" : "other";
}

/** Chat Completions usage: the cached share of the prompt and the reasoning share of the completion, when reported. */
function chatUsage(usage: any): Usage {
  const cached = usage.prompt_tokens_details?.cached_tokens;
  const reasoning = usage.completion_tokens_details?.reasoning_tokens;
  return {
    inputTokens: usage.prompt_tokens ?? 0,
    outputTokens: usage.completion_tokens ?? 0,
    ...(typeof cached === "number" ? { cachedInputTokens: cached } : {}),
    ...(typeof reasoning === "number" ? { reasoningTokens: reasoning } : {}),
  };
}

function toChatMessages(message: Message, provider: string): unknown[] {
  switch (message.role) {
    case "user":
      // Text alone keeps the plain-string shape every host accepts; pictures need the parts array.
      if (message.content.every((p) => p.type === "text")) {
        return [{ role: "user", content: message.content.map((p) => p.text).join("\n\n") }];
      }
      return [{ role: "user", content: message.content.map((p) => chatPart(p, provider)) }];
    case "tool":
      return [{ role: "tool", tool_call_id: message.toolCallId, content: message.content }];
    case "assistant": {
      const text = message.content.flatMap((p) => (p.type === "text" ? [p.text] : [])).join("");
      const toolCalls = message.content.flatMap((p) =>
        p.type === "tool_call"
          ? [{ id: p.id, type: "function", function: { name: p.name, arguments: JSON.stringify(p.arguments) } }]
          : [],
      );
      // Mistral rejects an assistant turn with a content key beside tool_calls; omitting it is valid everywhere.
      if (toolCalls.length) return [{ role: "assistant", tool_calls: toolCalls }];
      return [{ role: "assistant", content: text }];
    }
  }
}

function chatPart(part: UserMessage["content"][number], provider: string): unknown {
  if (part.type === "text") return { type: "text", text: part.text };
  if (part.type === "image") return { type: "image_url", image_url: { url: `data:${part.mime};base64,${part.data}` } };
  // Routing keeps PDFs off this wire (providers/documents.ts); one reaching it is refused, never dropped.
  return fail(provider, "invalid_request", `${provider} cannot take a PDF attachment over Chat Completions`);
}

function vendorError(body: any): { message?: string; code?: string } {
  // OpenAI-compatible servers nest under `error`; Mistral puts message/type at the top level.
  const err = body?.error ?? body;
  const message = typeof err?.message === "string" ? err.message : typeof err === "string" ? err : undefined;
  // OpenRouter's code is the numeric HTTP status; vendorCode is a string everywhere else.
  const code = err?.code ?? err?.type;
  return { message, code: code == null ? undefined : String(code) };
}
