/**
 * Anthropic's error envelope, `{"type":"error","error":{"type","message"},"request_id"}`, with the
 * headers the real API sends (request-id; retry-after and anthropic-ratelimit-* on 429).
 */
import type { FakeReply } from "./types.ts";
import { ids, jsonResponse } from "./wire-kit.ts";

type ErrorReply = Extract<FakeReply, { kind: "error" }>;

export function anthropicRequestId(): string {
  return ids.alnum("req_011C", 22);
}

export function anthropicError(
  status: number,
  type: string,
  message: string,
  headers: Record<string, string> = {},
): Response {
  const requestId = anthropicRequestId();
  return jsonResponse(
    status,
    { type: "error", error: { type, message }, request_id: requestId },
    { "request-id": requestId, ...headers },
  );
}

export const invalidRequest = (message: string) => anthropicError(400, "invalid_request_error", message);

/** 429 headers: seconds in retry-after, RFC 3339 instants in the anthropic-ratelimit-* family. */
function rateLimitHeaders(): Record<string, string> {
  const reset = new Date(Date.now() + 20_000).toISOString().replace(/\.\d{3}Z$/, "Z");
  return {
    "retry-after": "20",
    "anthropic-ratelimit-requests-limit": "50",
    "anthropic-ratelimit-requests-remaining": "0",
    "anthropic-ratelimit-requests-reset": reset,
    "anthropic-ratelimit-tokens-limit": "40000",
    "anthropic-ratelimit-tokens-remaining": "0",
    "anthropic-ratelimit-tokens-reset": reset,
  };
}

export function renderAnthropicError(reply: ErrorReply, ctx: { model: string }): Response {
  const [type, fallback] = describe(reply, ctx.model);
  const extra = reply.status === 429 ? rateLimitHeaders() : reply.status === 529 ? { "x-should-retry": "true" } : {};
  return anthropicError(reply.status, type, reply.message ?? fallback, { ...extra, ...reply.headers });
}

function describe(reply: ErrorReply, model: string): [type: string, message: string] {
  if (reply.code === "context_length_exceeded") {
    return ["invalid_request_error", "prompt is too long: 212345 tokens > 200000 maximum"];
  }
  switch (reply.status) {
    case 400:
      return ["invalid_request_error", "Invalid request"];
    case 401:
      return ["authentication_error", "invalid x-api-key"];
    case 402:
      return ["billing_error", "Your credit balance is too low to access the Anthropic API."];
    case 403:
      return ["permission_error", "Your API key does not have permission to use the specified resource."];
    case 404:
      return ["not_found_error", `model: ${model}`];
    case 413:
      return ["request_too_large", "Request exceeds the maximum allowed number of bytes."];
    case 429:
      return [
        "rate_limit_error",
        "This request would exceed the rate limit for your organization of 50 requests per minute. For details, refer to: https://docs.claude.com/en/api/rate-limits. You can see the response headers for current usage. Please reduce the prompt length or the maximum tokens requested, or try again later.",
      ];
    case 529:
      return ["overloaded_error", "Overloaded"];
    default:
      return reply.status >= 500
        ? ["api_error", "Internal server error"]
        : ["invalid_request_error", "Invalid request"];
  }
}
