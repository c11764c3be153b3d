/**
 * Fake Chat Completions (`POST /v1/chat/completions`), the wire of openrouter, mistral and ollama.
 * The flavor decides the host's quirks: auth, ids, error shapes, whether tool-call arguments arrive
 * in pieces or whole, where usage rides, and which conversation rules are enforced.
 */
import { type Flavor, flavorError, missingKeyError, renderFlavorError, wrongKeyError } from "./chat-flavor-errors.ts";
import { checkConversation, checkImageParts, checkMessagesShape } from "./chat-rules.ts";
import { type Incoming, startFakeServer } from "./fake-server.ts";
import { openAiInvalid, openAiMalformedJson, openAiMissingParam } from "./openai-errors.ts";
import { chatFormatProblem } from "./structured-output-rules.ts";
import type { FakeLlm, RenderableReply, ReportedUsage } from "./types.ts";
import {
  bearerToken,
  cutJsonResponse,
  estimateTokens,
  ids,
  isObject,
  jsonResponse,
  splitEven,
  sseFrame,
  sseResponse,
  unixSeconds,
} from "./wire-kit.ts";

export type { Flavor } from "./chat-flavor-errors.ts";

type ToolCall = { id: string; type: "function"; function: { name: string; arguments: string } };

/** What differs between hosts on the success path. */
const profiles = {
  generic: { completionId: () => ids.alnum("chatcmpl-", 29), callId: () => ids.alnum("call_", 24) },
  openrouter: { completionId: () => `gen-${unixSeconds()}-${ids.alnum("", 20)}`, callId: () => ids.alnum("call_", 24) },
  mistral: { completionId: () => ids.hex("", 32), callId: () => ids.alnum("", 9) },
  ollama: { completionId: () => `chatcmpl-${Math.floor(Math.random() * 1000)}`, callId: () => ids.alnum("call_", 8) },
} satisfies Record<Flavor, unknown>;

export function startFakeChatCompletions(opts: { apiKey?: string; flavor?: Flavor } = {}): Promise<FakeLlm> {
  const flavor = opts.flavor ?? "generic";
  return startFakeServer({
    baseUrl: (origin) => `${origin}/v1`,
    path: "/v1/chat/completions",
    notFound: ({ rec }) => flavorError(flavor, 404, `Invalid URL (${rec.method} ${rec.path})`),
    validate: (incoming) => validate(incoming, flavor, opts.apiKey),
    render: (reply, incoming) => render(reply, incoming, flavor),
  });
}

function validate({ rec, json, malformed }: Incoming, flavor: Flavor, apiKey: string | undefined): Response | null {
  // Ollama never checks credentials; a key sent to it is simply ignored.
  if (apiKey !== undefined && flavor !== "ollama") {
    const key = bearerToken(rec.headers);
    if (key === undefined) return missingKeyError(flavor);
    if (key !== apiKey) return wrongKeyError(flavor, key);
  }
  const generic = flavor === "generic";
  if (malformed || !isObject(json)) {
    return generic ? openAiMalformedJson() : flavorError(flavor, 400, "Invalid JSON body");
  }
  if (typeof json.model !== "string" || json.model === "") {
    return generic ? openAiMissingParam("model") : flavorError(flavor, 400, "model is required");
  }
  const shape = checkMessagesShape(json.messages);
  if (shape) {
    return generic ? openAiInvalid(shape.message, shape.param, shape.code) : flavorError(flavor, 400, shape.message);
  }
  const format = chatFormatProblem(json.response_format, { schemaRequired: flavor === "mistral" });
  if (format)
    return generic
      ? openAiInvalid(format.message, format.param, format.code)
      : flavorError(flavor, 400, format.message);
  return checkImageParts(flavor, json.messages) ?? checkConversation(flavor, json.messages);
}

function render(reply: RenderableReply, { rec, json }: Incoming, flavor: Flavor): Response {
  const body = json as Record<string, any>;
  if (reply.kind === "error") {
    return renderFlavorError(flavor, reply, { model: body.model, apiKey: bearerToken(rec.headers) });
  }
  const profile = profiles[flavor];
  const text = reply.kind === "tool_calls" ? (reply.text ?? "") : reply.kind === "empty" ? "" : reply.text;
  const calls: ToolCall[] =
    reply.kind === "tool_calls"
      ? reply.calls.map((c) => ({
          id: c.id ?? profile.callId(),
          type: "function",
          function: { name: c.name, arguments: JSON.stringify(c.arguments) },
        }))
      : [];
  const truncated = reply.kind === "text" && reply.truncated === true;
  const finish = calls.length > 0 ? "tool_calls" : truncated ? "length" : "stop";
  const usage = usageFor(body, text, calls, reply.kind === "text" ? reply.usage : undefined);
  const envelope = {
    id: profile.completionId(),
    created: unixSeconds(),
    model: body.model,
    ...(flavor === "openrouter" ? { provider: "OpenAI" } : {}),
    ...(flavor === "generic" || flavor === "openrouter" ? { system_fingerprint: "fp_fake0001" } : {}),
    ...(flavor === "ollama" ? { system_fingerprint: "fp_ollama" } : {}),
  };

  if (body.stream !== true) {
    const message = {
      role: "assistant",
      // OpenAI sends null content beside tool calls; Mistral and Ollama send "".
      content: text === "" && calls.length > 0 && flavor !== "mistral" && flavor !== "ollama" ? null : text,
      ...(flavor === "generic" || flavor === "openrouter" ? { refusal: null, annotations: [] } : {}),
      ...(calls.length > 0 ? { tool_calls: calls } : {}),
    };
    const completion = {
      ...envelope,
      object: "chat.completion",
      choices: [{ index: 0, message, logprobs: null, finish_reason: finish }],
      usage,
      ...(flavor === "generic" ? { service_tier: "default" } : {}),
    };
    return reply.kind === "cut" ? cutJsonResponse(completion) : jsonResponse(200, completion);
  }
  const frames = streamFrames({ reply, flavor, envelope, text, calls, finish, usage, body });
  return sseResponse(frames, { cut: reply.kind === "cut" });
}

function usageFor(body: Record<string, any>, text: string, calls: ToolCall[], reported?: ReportedUsage) {
  if (reported) {
    return {
      prompt_tokens: reported.input,
      completion_tokens: reported.output,
      total_tokens: reported.input + reported.output,
      prompt_tokens_details: { cached_tokens: reported.cached },
      completion_tokens_details: { reasoning_tokens: reported.reasoning },
    };
  }
  const prompt = estimateTokens(body.messages);
  const completion = text === "" && calls.length === 0 ? 0 : estimateTokens(text + JSON.stringify(calls));
  return { prompt_tokens: prompt, completion_tokens: completion, total_tokens: prompt + completion };
}

type StreamPlan = {
  reply: RenderableReply;
  flavor: Flavor;
  envelope: Record<string, unknown>;
  text: string;
  calls: ToolCall[];
  finish: string;
  usage: ReturnType<typeof usageFor>;
  body: Record<string, any>;
};

function streamFrames(plan: StreamPlan): string[] {
  const { reply, flavor, envelope, text, calls, finish, usage, body } = plan;
  const includeUsage = body.stream_options?.include_usage === true;
  const chunk = (delta: Record<string, unknown>, finishReason: string | null, extra: Record<string, unknown> = {}) =>
    sseFrame({
      ...envelope,
      object: "chat.completion.chunk",
      choices: [{ index: 0, delta, logprobs: null, finish_reason: finishReason }],
      ...(includeUsage && flavor === "generic" ? { usage: null } : {}),
      ...extra,
    });

  // OpenRouter keeps the connection warm with SSE comments while the upstream provider starts.
  const frames: string[] = flavor === "openrouter" ? [": OPENROUTER PROCESSING\n\n"] : [];
  frames.push(chunk({ role: "assistant", content: "", ...(flavor === "generic" ? { refusal: null } : {}) }, null));
  const pieces = reply.kind === "text" && reply.chunks ? reply.chunks : splitEven(text);
  for (const content of pieces) frames.push(chunk({ content }, null));
  if (reply.kind === "cut") return frames;

  // Mistral and Ollama emit each tool call whole in one chunk; OpenAI and OpenRouter split the arguments.
  const wholeCalls = flavor === "mistral" || flavor === "ollama";
  const callDeltas: Record<string, unknown>[] = [];
  calls.forEach((call, index) => {
    if (wholeCalls) {
      callDeltas.push({ tool_calls: [{ index, ...call }] });
      return;
    }
    callDeltas.push({
      tool_calls: [{ index, id: call.id, type: "function", function: { name: call.function.name, arguments: "" } }],
    });
    for (const args of splitEven(call.function.arguments)) {
      callDeltas.push({ tool_calls: [{ index, function: { arguments: args } }] });
    }
  });

  if (flavor === "mistral") {
    // Mistral puts finish_reason and usage on its last content-bearing chunk.
    const last = callDeltas.pop();
    for (const delta of callDeltas) frames.push(chunk(delta, null));
    frames.push(chunk(last ?? { content: "" }, finish, { usage }));
  } else {
    for (const delta of callDeltas) frames.push(chunk(delta, null));
    frames.push(chunk({}, finish));
    if (includeUsage || flavor === "openrouter") {
      frames.push(sseFrame({ ...envelope, object: "chat.completion.chunk", choices: [], usage }));
    }
  }
  frames.push(sseFrame("[DONE]"));
  return frames;
}
