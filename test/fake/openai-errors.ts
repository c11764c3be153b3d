/**
 * OpenAI's error envelope, `{"error":{"message","type","param","code"}}`, with the wording and
 * headers the real API sends, so clients are tested against what they will actually parse.
 */
import type { FakeReply } from "./types.ts";
import { ids, jsonResponse, maskKey } from "./wire-kit.ts";

type ErrorReply = Extract<FakeReply, { kind: "error" }>;
type Details = { message: string; type: string; param: string | null; code: string | null };

export function openAiRequestHeaders(): Record<string, string> {
  return { "x-request-id": ids.hex("req_", 32), "openai-version": "2020-10-01", "openai-processing-ms": "12" };
}

export function openAiError(status: number, details: Details, headers: Record<string, string> = {}): Response {
  return jsonResponse(status, { error: details }, { ...openAiRequestHeaders(), ...headers });
}

export const openAiMissingKey = () =>
  openAiError(401, {
    message:
      "You didn't provide an API key. You need to provide your API key in an Authorization header using Bearer auth (i.e. Authorization: Bearer YOUR_KEY), or as the password field (with blank username) if you're accessing the API from your browser and are prompted for a username and password. You can obtain an API key from https://platform.openai.com/account/api-keys.",
    type: "invalid_request_error",
    param: null,
    code: null,
  });

export const openAiWrongKey = (key: string) =>
  openAiError(401, {
    message: `Incorrect API key provided: ${maskKey(key)}. You can find your API key at https://platform.openai.com/account/api-keys.`,
    type: "invalid_request_error",
    param: null,
    code: "invalid_api_key",
  });

export const openAiMalformedJson = () =>
  openAiError(400, {
    message:
      "We could not parse the JSON body of your request. (HINT: This likely means you aren't using your HTTP library correctly. The OpenAI API expects a JSON payload, but what was sent was not valid JSON. If you have trouble figuring out how to fix this, please contact us through our help center at help.openai.com.)",
    type: "invalid_request_error",
    param: null,
    code: null,
  });

export const openAiInvalid = (message: string, param: string | null = null, code: string | null = null) =>
  openAiError(400, { message, type: "invalid_request_error", param, code });

export const openAiMissingParam = (param: string) =>
  openAiInvalid(`Missing required parameter: '${param}'.`, param, "missing_required_parameter");

/** 429 headers: `retry-after` in seconds plus OpenAI's own duration-formatted reset hints. */
function rateLimitHeaders(): Record<string, string> {
  return {
    "retry-after": "20",
    "x-ratelimit-limit-requests": "500",
    "x-ratelimit-remaining-requests": "0",
    "x-ratelimit-reset-requests": "20s",
    "x-ratelimit-limit-tokens": "30000",
    "x-ratelimit-remaining-tokens": "0",
    "x-ratelimit-reset-tokens": "1m0s",
  };
}

/**
 * A scripted `error` reply in OpenAI's words. `surface` picks the context-length wording, which differs
 * between Chat Completions (messages) and Responses (input).
 */
export function renderOpenAiError(
  reply: ErrorReply,
  ctx: { model: string; apiKey?: string; surface: "chat" | "responses" },
): Response {
  const details = openAiDetails(reply, ctx);
  const extra = reply.status === 429 ? rateLimitHeaders() : {};
  return openAiError(reply.status, details, { ...extra, ...reply.headers });
}

function openAiDetails(reply: ErrorReply, ctx: { model: string; apiKey?: string; surface: string }): Details {
  const { status, code } = reply;
  const base = (message: string, type: string, param: string | null, fallbackCode: string | null): Details => ({
    message: reply.message ?? message,
    type,
    param,
    code: code ?? fallbackCode,
  });
  if (code === "context_length_exceeded") {
    return ctx.surface === "chat"
      ? base(
          "This model's maximum context length is 128000 tokens. However, your messages resulted in 131072 tokens. Please reduce the length of the messages.",
          "invalid_request_error",
          "messages",
          code,
        )
      : base(
          "Your input exceeds the context window of this model. Please adjust your input and try again.",
          "invalid_request_error",
          "input",
          code,
        );
  }
  if (code === "insufficient_quota") {
    return base(
      "You exceeded your current quota, please check your plan and billing details. For more information on this error, read the docs: https://platform.openai.com/docs/guides/error-codes/api-errors.",
      "insufficient_quota",
      null,
      code,
    );
  }
  switch (status) {
    case 400:
      return base("Invalid request.", "invalid_request_error", null, null);
    case 401:
      return base(
        `Incorrect API key provided: ${maskKey(ctx.apiKey ?? "sk-fake-key-xyz")}. You can find your API key at https://platform.openai.com/account/api-keys.`,
        "invalid_request_error",
        null,
        "invalid_api_key",
      );
    case 403:
      return base(
        `Project does not have access to model \`${ctx.model}\``,
        "invalid_request_error",
        null,
        "model_not_found",
      );
    case 404:
      return base(
        `The model \`${ctx.model}\` does not exist or you do not have access to it.`,
        "invalid_request_error",
        null,
        "model_not_found",
      );
    case 429:
      return base(
        `Rate limit reached for ${ctx.model} in organization org-fake on requests per min (RPM): Limit 500, Used 500, Requested 1. Please try again in 20s. Visit https://platform.openai.com/account/rate-limits to learn more.`,
        "requests",
        null,
        "rate_limit_exceeded",
      );
    case 500:
      return base(
        "The server had an error while processing your request. Sorry about that!",
        "server_error",
        null,
        null,
      );
    case 503:
      return base("The engine is currently overloaded, please try again later.", "server_error", null, null);
    default:
      return base(
        status >= 500 ? "The server had an error processing your request." : "Request failed.",
        status >= 500 ? "server_error" : "invalid_request_error",
        null,
        null,
      );
  }
}
