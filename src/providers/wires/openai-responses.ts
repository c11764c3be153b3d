import { responsesTextFormat } from "../structured-output.ts";
import type {
  BearerToken,
  Message,
  StopReason,
  StreamEvent,
  ToolCallPart,
  ToolSpec,
  Usage,
  WireCall,
  WireDeps,
} from "../types.ts";
import { grokRejectsEffort, withoutSlashEnums } from "../xai-quirks.ts";
import { type CredentialStyle, postWithCredential } from "./_credential.ts";
import { defineWire, fail, WireFailure } from "./_failure.ts";
import { serializedOnce, spliceJson } from "./_json-body.ts";
import { parseJsonData, parseToolArguments } from "./_transport.ts";

/** Each tool's Responses entry as JSON, by its spec (xAI's entries differ: withoutSlashEnums). */
const toolEntries = { plain: new WeakMap(), xai: new WeakMap() } as const;

function toolJson(t: ToolSpec, xai: boolean): string {
  return serializedOnce(xai ? toolEntries.xai : toolEntries.plain, t, [t.name, t.description, t.parameters], () => ({
    type: "function",
    name: t.name,
    description: t.description,
    parameters: xai ? withoutSlashEnums(t.parameters) : t.parameters,
    strict: false,
  }));
}

/** Codex asks for priority processing with this service tier when `fast = true`. */
export const CODEX_FAST_TIER = "priority";

/**
 * Events that only restate the request (its instructions and every tool's schema, ~15 KB each with the built-in
 * tools) and say nothing the stream does not say again: named by the server's `event:` line, they are skipped
 * unparsed. Parsing them was most of a daemon turn's JSON work. One without an `event:` line is parsed as before.
 */
const ECHOES = new Set(["response.created", "response.in_progress", "response.queued"]);

/**
 * OpenAI Responses API (`POST {base}/responses`), spoken by OpenAI, xAI and the ChatGPT Codex backend
 * (whose base URL ends in /codex, and which takes a signed-in ChatGPT token instead of a key).
 */
export const openaiResponsesWire = defineWire("openai-responses", run);

async function* run(call: WireCall, deps: WireDeps): AsyncGenerator<StreamEvent> {
  const { target, request } = call;
  const head: Record<string, unknown> = {
    model: request.model,
    instructions: request.system,
    input: request.messages.flatMap(toInputItems),
    stream: true,
    // Conversations live in fermix's own store; nothing needs to stay on the provider. Without stored
    // state, reasoning carries over between tool-loop calls only as encrypted content we send back.
    store: false,
    include: ["reasoning.encrypted_content"],
  };
  // The tools follow `include`, each entry serialized once per spec (toolJson); the rest follows them.
  const tools = request.tools?.length
    ? `[${request.tools.map((t) => toolJson(t, target.xai === true)).join(",")}]`
    : undefined;
  const tail: Record<string, unknown> = {};
  // The route's effort is the configured one clamped to the provider; some Grok models refuse any effort at all.
  if (request.effort && !(target.xai && grokRejectsEffort(request.model))) tail.reasoning = { effort: request.effort };
  // OpenAI and Codex write a readable summary of the reasoning when asked (a chat shows its headings while the
  // model thinks). xAI does not document the field, and an effort of "none" has nothing to summarise.
  if (tail.reasoning && !target.xai && request.effort !== "none")
    tail.reasoning = { ...tail.reasoning, summary: "auto" };
  // The Codex backend rejects an output cap; it sizes the answer itself.
  if (request.maxOutputTokens && !target.codex) tail.max_output_tokens = request.maxOutputTokens;
  if (target.codex?.fast) tail.service_tier = CODEX_FAST_TIER;
  // OpenAI, xAI and the Codex backend all take Responses' structured output.
  if (request.schema) tail.text = responsesTextFormat(request.schema);
  const body = tools === undefined ? { ...head, ...tail } : spliceJson(head, "tools", tools, tail);

  const headers: Record<string, string> = { ...target.headers };
  const style: CredentialStyle = { apiKeyHeader: "authorization" };
  if (target.codex) {
    headers["openai-beta"] = "responses=experimental";
    headers.originator = "pi";
    style.oauthHeaders = codexAccountHeader;
  }

  const calls = new Map<string, { callId: string; name: string; args: string }>();
  // Summary parts already yielded, by item and index: a part ends in both a text.done and a part.done event.
  const summaries = new Set<string>();
  let sawToolCall = false;
  // Whether anything usable arrived: a Codex stream that ends without its terminal event keeps it.
  let produced = false;
  // A failure the server stated is surfaced as stated, never read as a silent end.
  let declared = false;
  const url = `${target.baseUrl}/responses`;
  const keepWhatArrived = (why: string): StreamEvent => {
    // Output items stand on their own; dropping them would throw away a usable answer (and, mid tool
    // loop, kill the turn, since a continuation is never retried elsewhere).
    deps.warn?.(`${target.provider} ${why} without saying the response finished; keeping what arrived`);
    return { type: "done", stopReason: sawToolCall ? "tool_use" : "stop" };
  };
  try {
    for await (const sse of postWithCredential(call, deps, url, headers, body, vendorError, style)) {
      if (sse.data === "[DONE]" || ECHOES.has(sse.event ?? "")) continue;
      const event = parseJsonData(target.provider, sse.data);
      switch (event.type) {
        case "response.output_text.delta":
          if (event.delta) {
            produced = true;
            yield { type: "text_delta", text: event.delta };
          }
          break;
        case "response.output_item.added":
          if (event.item?.type === "function_call") {
            calls.set(event.item.id, { callId: event.item.call_id, name: event.item.name, args: "" });
          }
          break;
        case "response.reasoning_summary_text.done":
        case "response.reasoning_summary_part.done": {
          const key = `${event.item_id}:${event.summary_index}`;
          const text = event.type === "response.reasoning_summary_text.done" ? event.text : event.part?.text;
          if (typeof text === "string" && text.trim() && !summaries.has(key)) {
            summaries.add(key);
            yield { type: "reasoning_summary", text };
          }
          break;
        }
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
            produced = true;
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
          // Codex: an incomplete answer that generated nothing is a declared failure, not an empty reply.
          if (event.type === "response.incomplete" && target.codex && !produced) {
            declared = true;
            declaredFailure(target.provider, event);
          }
          const usage = event.response?.usage;
          const ended: StopReason = event.type === "response.incomplete" ? incompleteStop(event) : "stop";
          yield {
            type: "done",
            stopReason: sawToolCall ? "tool_use" : ended,
            usage: usage ? responsesUsage(usage) : undefined,
          };
          return;
        }
        case "response.failed":
        case "error":
          declared = true;
          declaredFailure(target.provider, event);
      }
    }
  } catch (err) {
    const cut = err instanceof WireFailure && err.failure.class === "transient" && !declared;
    if (!(target.codex && produced && cut)) throw err;
    yield keepWhatArrived(`broke the stream (${err.message})`);
    return;
  }
  if (target.codex && produced) {
    yield keepWhatArrived("ended the stream");
    return;
  }
  // No reason given: a transport close, retried on the same route and eligible for failover.
  fail(target.provider, "transient", `${target.provider} closed the stream before the response completed`, {
    vendorCode: "stream_closed",
  });
}

/**
 * Why an incomplete response stopped: the output limit (`max_output_tokens`, or no reason given) is a truncated
 * answer; a content filter is not a length cut, and must not be reported as one.
 */
function incompleteStop(event: any): StopReason {
  const reason = event.response?.incomplete_details?.reason;
  return reason === undefined || reason === null || reason === "max_output_tokens" ? "length" : "other";
}

/**
 * A failure the server declared inside a 200 stream. Overload and server errors are the provider being
 * unavailable (retryable, failover-eligible); the server's own sentence is quoted as it came.
 */
function declaredFailure(provider: string, event: any): never {
  const err = event.response?.error ?? event.error ?? event.response?.incomplete_details ?? event;
  const code: string | undefined = err?.code ?? err?.type ?? err?.reason ?? undefined;
  const message: string | undefined = typeof err?.message === "string" ? err.message : undefined;
  const overloaded = /overload|server_error|unavailable|rate|capacity/i.test(`${code} ${message}`);
  return fail(
    provider,
    overloaded ? "transient" : "invalid_request",
    `${provider}: ${message ?? (code ? `the response failed (${code})` : "the response failed")}`,
    { vendorCode: code },
  );
}

/** The ChatGPT account the token belongs to: the Codex backend bills the plan of this account. */
function codexAccountHeader(token: BearerToken): Record<string, string> {
  const account = token.accountId ?? accountFromJwt(token.accessToken);
  return account ? { "chatgpt-account-id": account } : {};
}

/** ChatGPT access tokens are JWTs carrying the account id under the auth claim. */
export function accountFromJwt(jwt: string): string | undefined {
  const payload = jwt.split(".")[1];
  if (!payload) return undefined;
  try {
    const claims = JSON.parse(Buffer.from(payload, "base64url").toString("utf8"));
    const id = claims?.["https://api.openai.com/auth"]?.chatgpt_account_id;
    return typeof id === "string" && id ? id : undefined;
  } catch {
    return undefined;
  }
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
              : p.type === "image"
                ? { type: "input_image", image_url: `data:${p.mime};base64,${p.data}`, detail: "auto" }
                : { type: "input_file", filename: p.name, file_data: `data:${p.mime};base64,${p.data}` },
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

/** Responses usage: the cached share of the input and the reasoning share of the output, when reported. */
function responsesUsage(usage: any): Usage {
  const cached = usage.input_tokens_details?.cached_tokens;
  const reasoning = usage.output_tokens_details?.reasoning_tokens;
  return {
    inputTokens: usage.input_tokens ?? 0,
    outputTokens: usage.output_tokens ?? 0,
    ...(typeof cached === "number" ? { cachedInputTokens: cached } : {}),
    ...(typeof reasoning === "number" ? { reasoningTokens: reasoning } : {}),
  };
}

function vendorError(body: any): { message?: string; code?: string } {
  const err = body?.error;
  // The Codex backend states body-rule refusals as `{"detail": "…"}`.
  const message =
    typeof err?.message === "string" ? err.message : typeof body?.detail === "string" ? body.detail : undefined;
  return { message, code: err?.code ?? err?.type ?? undefined };
}
