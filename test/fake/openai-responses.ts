/**
 * Fake OpenAI Responses API (`POST /v1/responses`), the wire of the openai and xai providers.
 * Streams the same typed SSE events, in the same order and with the same routing fields
 * (output_index, item_id, content_index, sequence_number), that the official SDK's strict
 * accumulator checks.
 */

import { responsesFileProblem } from "./document-rules.ts";
import { type Incoming, startFakeServer } from "./fake-server.ts";
import { openAiImageUrlProblem } from "./image-data.ts";
import {
  openAiError,
  openAiInvalid,
  openAiMalformedJson,
  openAiMissingKey,
  openAiMissingParam,
  openAiRequestHeaders,
  openAiWrongKey,
  renderOpenAiError,
} from "./openai-errors.ts";
import { reasoningFrames, reasoningItem } from "./responses-reasoning.ts";
import { responsesFormatProblem } from "./structured-output-rules.ts";
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

type Item = Record<string, any>;

export function startFakeOpenAIResponses(opts: { apiKey?: string } = {}): Promise<FakeLlm> {
  return startFakeServer({
    baseUrl: (origin) => `${origin}/v1`,
    path: "/v1/responses",
    notFound: ({ rec }) =>
      openAiError(404, {
        message: `Invalid URL (${rec.method} ${rec.path})`,
        type: "invalid_request_error",
        param: null,
        code: null,
      }),
    validate: (incoming) => validate(incoming, opts.apiKey),
    render,
  });
}

function validate({ rec, json, malformed }: Incoming, apiKey: string | undefined): Response | null {
  if (apiKey !== undefined) {
    const key = bearerToken(rec.headers);
    if (key === undefined) return openAiMissingKey();
    if (key !== apiKey) return openAiWrongKey(key);
  }
  if (malformed || !isObject(json)) return openAiMalformedJson();
  if (typeof json.model !== "string" || json.model === "") return openAiMissingParam("model");
  if (json.input === undefined) return openAiMissingParam("input");
  const format = responsesFormatProblem(json.text);
  if (format) return openAiInvalid(format.message, format.param, format.code);
  if (Array.isArray(json.input)) {
    const image = checkInputImages(json.input) ?? checkInputFiles(json.input);
    if (image) return image;
  }
  if (Array.isArray(json.input) && json.previous_response_id == null) return checkToolPairing(json.input);
  return null;
}

/** input_image parts: a data URL of a real picture, and a known detail level. */
function checkInputImages(input: unknown[]): Response | null {
  for (let i = 0; i < input.length; i++) {
    const item = input[i];
    if (!isObject(item) || !Array.isArray(item.content)) continue;
    for (let j = 0; j < item.content.length; j++) {
      const part = item.content[j];
      if (!isObject(part) || part.type !== "input_image") continue;
      const param = `input[${i}].content[${j}]`;
      if (part.detail !== undefined && !IMAGE_DETAILS.includes(part.detail)) {
        return openAiInvalid(
          `Invalid value: '${part.detail}'. Supported values are: 'low', 'high', 'auto', and 'original'.`,
          `${param}.detail`,
          "invalid_value",
        );
      }
      if (part.image_url === undefined && part.file_id === undefined) {
        return openAiInvalid(
          `Invalid '${param}': one of image_url or file_id must be provided.`,
          `${param}.image_url`,
          "missing_required_parameter",
        );
      }
      const problem =
        part.image_url === undefined
          ? null
          : openAiImageUrlProblem(part.image_url, `${param}.image_url`, `Invalid '${param}.image_url'.`);
      if (problem) {
        return openAiInvalid(
          problem.message,
          problem.code === "invalid_image_format" ? null : `${param}.image_url`,
          problem.code,
        );
      }
    }
  }
  return null;
}

const IMAGE_DETAILS: unknown[] = ["low", "high", "auto", "original"];

/** input_file parts: inline PDFs (document-rules.ts). */
function checkInputFiles(input: unknown[]): Response | null {
  for (let i = 0; i < input.length; i++) {
    const item = input[i];
    if (!isObject(item) || !Array.isArray(item.content)) continue;
    for (let j = 0; j < item.content.length; j++) {
      const part = item.content[j];
      if (!isObject(part) || part.type !== "input_file") continue;
      const problem = responsesFileProblem(part, `input[${i}].content[${j}]`);
      if (problem) return openAiInvalid(problem.message, problem.param, "invalid_value");
    }
  }
  return null;
}

/** Without previous_response_id the whole conversation is inline, so every call and output must pair up. */
function checkToolPairing(input: unknown[]): Response | null {
  const items = input.filter(isObject);
  const calls = new Set(items.filter((i) => i.type === "function_call").map((i) => i.call_id));
  const outputs = new Set(items.filter((i) => i.type === "function_call_output").map((i) => i.call_id));
  for (const id of outputs) {
    if (!calls.has(id))
      return openAiInvalid(`No tool call found for function call output with call_id ${id}.`, "input");
  }
  for (const id of calls) {
    if (!outputs.has(id)) return openAiInvalid(`No tool output found for function call ${id}.`, "input");
  }
  return null;
}

function render(reply: RenderableReply, { rec, json }: Incoming): Response {
  const body = json as Record<string, any>;
  if (reply.kind === "error") {
    return renderOpenAiError(reply, { model: body.model, apiKey: bearerToken(rec.headers), surface: "responses" });
  }
  const items = outputItems(reply, body);
  const usage = usageFor(body, items, reply.kind === "text" ? reply.usage : undefined);
  const response = baseResponse(body);
  const headers = openAiRequestHeaders();
  if (body.stream !== true) {
    const full = { ...response, ...finalState(reply), output: items, usage };
    return reply.kind === "cut" ? cutJsonResponse(full, headers) : jsonResponse(200, full, headers);
  }
  return sseResponse(streamFrames(reply, response, items, usage), { cut: reply.kind === "cut", headers });
}

/** The finished output items, in the order the model produced them: reasoning, text, then tool calls. */
function outputItems(reply: RenderableReply, body: Record<string, any>): Item[] {
  const reasoning = reasoningItem(reply, body);
  const items: Item[] = reasoning ? [reasoning] : [];
  const text =
    reply.kind === "text" || reply.kind === "cut" ? reply.text : reply.kind === "tool_calls" ? reply.text : "";
  if (text) {
    items.push({
      id: ids.hex("msg_", 48),
      type: "message",
      // A message cut at the output limit stays "incomplete", like the response around it.
      status: isTruncated(reply) ? "incomplete" : "completed",
      content: [{ type: "output_text", annotations: [], logprobs: [], text }],
      role: "assistant",
    });
  }
  if (reply.kind === "tool_calls") {
    for (const call of reply.calls) {
      items.push({
        id: ids.hex("fc_", 48),
        type: "function_call",
        status: "completed",
        arguments: JSON.stringify(call.arguments),
        call_id: call.id ?? ids.alnum("call_", 24),
        name: call.name,
      });
    }
  }
  return items;
}

function usageFor(body: Record<string, any>, items: Item[], reported?: ReportedUsage) {
  const input = reported?.input ?? estimateTokens(body.input) + estimateTokens(body.instructions ?? "");
  const output = reported?.output ?? (items.length === 0 ? 0 : estimateTokens(items));
  return {
    input_tokens: input,
    input_tokens_details: { cached_tokens: reported?.cached ?? 0 },
    output_tokens: output,
    output_tokens_details: { reasoning_tokens: reported?.reasoning ?? 0 },
    total_tokens: input + output,
  };
}

/** The response envelope as of response.created: echoes the request's settings, no output yet. */
function baseResponse(body: Record<string, any>) {
  return {
    id: ids.hex("resp_", 48),
    object: "response",
    created_at: unixSeconds(),
    status: "in_progress",
    background: false,
    error: null,
    incomplete_details: null,
    instructions: body.instructions ?? null,
    max_output_tokens: body.max_output_tokens ?? null,
    max_tool_calls: null,
    model: body.model,
    output: [] as Item[],
    parallel_tool_calls: body.parallel_tool_calls ?? true,
    previous_response_id: body.previous_response_id ?? null,
    prompt_cache_key: null,
    reasoning: { effort: body.reasoning?.effort ?? null, summary: body.reasoning?.summary ?? null },
    safety_identifier: null,
    service_tier: "default",
    store: body.store ?? true,
    temperature: body.temperature ?? 1,
    // The service echoes the request's text settings (a structured output's format among them).
    text: { format: body.text?.format ?? { type: "text" }, verbosity: body.text?.verbosity ?? "medium" },
    tool_choice: body.tool_choice ?? "auto",
    tools: body.tools ?? [],
    top_logprobs: 0,
    top_p: body.top_p ?? 1,
    truncation: "disabled",
    usage: null as unknown,
    user: null,
    metadata: body.metadata ?? {},
  };
}

function streamFrames(reply: RenderableReply, response: Item, items: Item[], usage: unknown): string[] {
  let seq = 0;
  const frames: string[] = [];
  const emit = (type: string, fields: Record<string, unknown>) =>
    frames.push(sseFrame({ type, sequence_number: seq++, ...fields }, type));

  emit("response.created", { response });
  emit("response.in_progress", { response });
  items.forEach((item, index) => {
    const routing = { item_id: item.id, output_index: index };
    if (item.type === "reasoning") reasoningFrames(item, index, emit);
    else if (item.type === "message") {
      const text: string = item.content[0].text;
      emit("response.output_item.added", {
        output_index: index,
        item: { ...item, status: "in_progress", content: [] },
      });
      const emptyPart = { type: "output_text", annotations: [], logprobs: [], text: "" };
      emit("response.content_part.added", { ...routing, content_index: 0, part: emptyPart });
      const pieces = reply.kind === "text" && reply.chunks ? reply.chunks : splitEven(text);
      for (const delta of pieces) {
        emit("response.output_text.delta", {
          ...routing,
          content_index: 0,
          delta,
          logprobs: [],
          obfuscation: ids.alnum("", 8),
        });
      }
      if (reply.kind === "cut") return;
      emit("response.output_text.done", { ...routing, content_index: 0, text, logprobs: [] });
      emit("response.content_part.done", { ...routing, content_index: 0, part: { ...emptyPart, text } });
      emit("response.output_item.done", { output_index: index, item });
    } else {
      emit("response.output_item.added", {
        output_index: index,
        item: { ...item, status: "in_progress", arguments: "" },
      });
      for (const delta of splitEven(item.arguments)) {
        emit("response.function_call_arguments.delta", { ...routing, delta, obfuscation: ids.alnum("", 8) });
      }
      emit("response.function_call_arguments.done", { ...routing, name: item.name, arguments: item.arguments });
      emit("response.output_item.done", { output_index: index, item });
    }
  });
  if (reply.kind !== "cut") {
    const type = isTruncated(reply) ? "response.incomplete" : "response.completed";
    emit(type, { response: { ...response, ...finalState(reply), output: items, usage } });
  }
  return frames;
}

function isTruncated(reply: RenderableReply): boolean {
  return reply.kind === "text" && reply.truncated === true;
}

/** How a response ends: completed, or incomplete because the model reached max_output_tokens. */
function finalState(reply: RenderableReply) {
  return isTruncated(reply)
    ? { status: "incomplete", incomplete_details: { reason: "max_output_tokens" } }
    : { status: "completed" };
}

/** The Responses body rules and rendering, for fakes of hosts that speak this wire behind their own door (Codex). */
export { render as renderResponses, validate as validateResponses };
