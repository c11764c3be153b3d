/**
 * Fake Anthropic Messages API (`POST /v1/messages`; the base URL has no `/v1`, as the SDK and
 * ANTHROPIC_BASE_URL expect). Streams message_start … message_stop with ping frames and tool input
 * split across input_json_delta fragments, exactly as the service does.
 */
import { anthropicError, anthropicRequestId, invalidRequest, renderAnthropicError } from "./anthropic-errors.ts";
import { findMessagesProblem } from "./anthropic-rules.ts";
import { type Incoming, startFakeServer } from "./fake-server.ts";
import { anthropicFormatProblem } from "./structured-output-rules.ts";
import type { FakeLlm, RenderableReply } from "./types.ts";
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
} from "./wire-kit.ts";

type Block = Record<string, any>;

/**
 * `oauthToken`: the fake serves a Claude subscription token instead of a key, and only to requests shaped
 * like Claude Code's (src/providers/wires/_claude-code.ts), refusing the rest as the service does.
 */
export function startFakeAnthropic(opts: { apiKey?: string; oauthToken?: string } = {}): Promise<FakeLlm> {
  return startFakeServer({
    baseUrl: (origin) => origin,
    path: "/v1/messages",
    notFound: () => anthropicError(404, "not_found_error", "Not Found"),
    validate: (incoming) =>
      (opts.oauthToken === undefined ? null : validateOAuth(incoming, opts.oauthToken)) ??
      validate(incoming, opts.apiKey),
    render,
  });
}

const CLAUDE_CODE_IDENTITY = "You are Claude Code, Anthropic's official CLI for Claude.";
const CLAUDE_CODE_ONLY =
  "This credential is only authorized for use with Claude Code and cannot be used for other API requests.";

function validateOAuth({ rec, json }: Incoming, token: string): Response | null {
  const bearer = bearerToken(rec.headers);
  if (bearer === undefined) return anthropicError(401, "authentication_error", "x-api-key header is required");
  const betas = (rec.headers["anthropic-beta"] ?? "").split(",").map((b) => b.trim());
  if (!betas.includes("oauth-2025-04-20")) {
    return anthropicError(401, "authentication_error", "OAuth authentication is currently not supported.");
  }
  if (bearer !== token) {
    return anthropicError(
      401,
      "authentication_error",
      "OAuth token has expired. Please obtain a new token or refresh your existing token.",
    );
  }
  const body = isObject(json) ? json : {};
  const system = Array.isArray(body.system) ? body.system : [];
  const identified = isObject(system[0]) && system[0].text === CLAUDE_CODE_IDENTITY;
  const tools = Array.isArray(body.tools) ? body.tools : [];
  const namespaced = tools.every((t) => isObject(t) && typeof t.name === "string" && t.name.startsWith("mcp_"));
  if (!identified || !namespaced || !betas.includes("claude-code-20250219")) {
    return anthropicError(400, "invalid_request_error", CLAUDE_CODE_ONLY);
  }
  return null;
}

function validate({ rec, json, malformed }: Incoming, apiKey: string | undefined): Response | null {
  if (apiKey !== undefined) {
    // Current SDKs send the key as `Authorization: Bearer`; raw clients send `x-api-key`. The API takes both.
    const key = rec.headers["x-api-key"] ?? bearerToken(rec.headers);
    if (key === undefined) return anthropicError(401, "authentication_error", "x-api-key header is required");
    if (key !== apiKey) return anthropicError(401, "authentication_error", "invalid x-api-key");
  }
  if (!rec.headers["anthropic-version"]) return invalidRequest("anthropic-version: header is required");
  if (malformed || !isObject(json)) return invalidRequest("There was an error parsing the body: invalid JSON");
  const problem = findMessagesProblem(json) ?? anthropicFormatProblem(json);
  return problem ? invalidRequest(problem) : null;
}

function render(reply: RenderableReply, { json }: Incoming): Response {
  const body = json as Record<string, any>;
  if (reply.kind === "error") return renderAnthropicError(reply, { model: body.model });
  const blocks = contentBlocks(reply);
  const truncated = reply.kind === "text" && reply.truncated === true;
  const stopReason = blocks.some((b) => b.type === "tool_use") ? "tool_use" : truncated ? "max_tokens" : "end_turn";
  const reported = reply.kind === "text" ? reply.usage : undefined;
  // Anthropic counts cache reads apart from input_tokens (which is only the uncached rest); it reports no reasoning.
  const inputTokens = reported
    ? reported.input - reported.cached
    : estimateTokens(body.messages) + estimateTokens(body.system ?? "");
  const outputTokens = reported?.output ?? (blocks.length === 0 ? 1 : estimateTokens(blocks));
  const message = {
    id: ids.alnum("msg_01", 22),
    type: "message",
    role: "assistant",
    model: body.model,
    content: blocks,
    stop_reason: stopReason as string | null,
    stop_sequence: null,
    usage: {
      input_tokens: inputTokens,
      cache_creation_input_tokens: 0,
      cache_read_input_tokens: reported?.cached ?? 0,
      cache_creation: { ephemeral_5m_input_tokens: 0, ephemeral_1h_input_tokens: 0 },
      output_tokens: outputTokens,
      service_tier: "standard",
    },
  };
  const headers = { "request-id": anthropicRequestId() };
  if (body.stream !== true) {
    return reply.kind === "cut" ? cutJsonResponse(message, headers) : jsonResponse(200, message, headers);
  }
  return sseResponse(streamFrames(reply, message, blocks), { cut: reply.kind === "cut", headers });
}

function contentBlocks(reply: RenderableReply): Block[] {
  const blocks: Block[] = [];
  const text =
    reply.kind === "text" || reply.kind === "cut" ? reply.text : reply.kind === "tool_calls" ? reply.text : "";
  if (text) blocks.push({ type: "text", text, citations: null });
  if (reply.kind === "tool_calls") {
    for (const call of reply.calls) {
      blocks.push({
        type: "tool_use",
        id: call.id ?? ids.alnum("toolu_01", 22),
        name: call.name,
        input: call.arguments,
        caller: { type: "direct" },
      });
    }
  }
  return blocks;
}

function streamFrames(reply: RenderableReply, message: Record<string, any>, blocks: Block[]): string[] {
  const frames: string[] = [];
  const emit = (type: string, fields: Record<string, unknown> = {}) => frames.push(sseFrame({ type, ...fields }, type));

  // message_start carries the input usage; output_tokens is a placeholder until message_delta.
  emit("message_start", {
    message: { ...message, content: [], stop_reason: null, usage: { ...message.usage, output_tokens: 1 } },
  });
  blocks.forEach((block, index) => {
    if (block.type === "text") {
      emit("content_block_start", { index, content_block: { ...block, text: "" } });
      if (index === 0) emit("ping");
      const pieces = reply.kind === "text" && reply.chunks ? reply.chunks : splitEven(block.text);
      for (const text of pieces) emit("content_block_delta", { index, delta: { type: "text_delta", text } });
      if (reply.kind === "cut") return;
    } else {
      // The input starts empty and is rebuilt by the client from input_json_delta fragments.
      emit("content_block_start", { index, content_block: { ...block, input: {} } });
      if (index === 0) emit("ping");
      // The service opens every tool input with an empty fragment before the JSON itself.
      const fragments = ["", ...splitEven(JSON.stringify(block.input))];
      for (const partial_json of fragments) {
        emit("content_block_delta", { index, delta: { type: "input_json_delta", partial_json } });
      }
    }
    emit("content_block_stop", { index });
  });
  if (reply.kind === "cut") return frames;
  if (blocks.length === 0) emit("ping");
  emit("message_delta", {
    delta: { stop_reason: message.stop_reason, stop_sequence: null },
    usage: { output_tokens: message.usage.output_tokens },
  });
  emit("message_stop");
  return frames;
}
