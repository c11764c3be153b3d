/**
 * How each Chat Completions host words its errors. They share a URL shape but not an error shape:
 * OpenRouter nests a numeric code, Mistral answers some errors with a top-level `message` (so the
 * OpenAI SDK finds no `error` key), Ollama uses OpenAI's envelope with its own types.
 */
import { openAiError, renderOpenAiError } from "./openai-errors.ts";
import type { FakeReply } from "./types.ts";
import { ids, jsonResponse } from "./wire-kit.ts";

export type Flavor = "openrouter" | "mistral" | "ollama" | "generic";
type ErrorReply = Extract<FakeReply, { kind: "error" }>;
type Ctx = { model: string; apiKey?: string };

export function flavorError(flavor: Flavor, status: number, message: string, extra: Record<string, unknown> = {}) {
  switch (flavor) {
    case "openrouter":
      return jsonResponse(status, { error: { message, code: status, ...extra } });
    case "mistral":
      return jsonResponse(status, {
        object: "error",
        message,
        type: mistralType(status),
        param: null,
        code: null,
        ...extra,
      });
    case "ollama":
      return jsonResponse(status, { error: { message, type: ollamaType(status), param: null, code: null } });
    case "generic":
      return openAiError(status, {
        message,
        type: status >= 500 ? "server_error" : "invalid_request_error",
        param: (extra.param as string | undefined) ?? null,
        code: (extra.code as string | undefined) ?? null,
      });
  }
}

function mistralType(status: number): string {
  if (status === 429) return "rate_limited";
  if (status >= 500) return "internal_server_error";
  return "invalid_request_error";
}

/** Ollama's OpenAI shim maps the HTTP status to a type and nothing else. */
function ollamaType(status: number): string {
  if (status === 400) return "invalid_request_error";
  if (status === 404) return "not_found_error";
  return "api_error";
}

export function missingKeyError(flavor: Flavor): Response {
  if (flavor === "openrouter") return flavorError(flavor, 401, "No auth credentials found");
  if (flavor === "mistral") return jsonResponse(401, { message: "Unauthorized", request_id: ids.hex("", 32) });
  return renderOpenAiError({ kind: "error", status: 401 }, { model: "", surface: "chat" });
}

export function wrongKeyError(flavor: Flavor, key: string): Response {
  if (flavor === "openrouter") return flavorError(flavor, 401, "User not found.");
  if (flavor === "mistral") return jsonResponse(401, { message: "Unauthorized", request_id: ids.hex("", 32) });
  return renderOpenAiError({ kind: "error", status: 401 }, { model: "", apiKey: key, surface: "chat" });
}

/** A scripted `error` reply in the flavor's own words and headers. */
export function renderFlavorError(flavor: Flavor, reply: ErrorReply, ctx: Ctx): Response {
  if (flavor === "generic") return renderOpenAiError(reply, { ...ctx, surface: "chat" });
  const response =
    flavor === "ollama"
      ? ollamaError(reply, ctx)
      : flavor === "mistral"
        ? mistralError(reply, ctx)
        : openRouterError(reply, ctx);
  for (const [name, value] of Object.entries(reply.headers ?? {})) response.headers.set(name, value);
  return response;
}

function openRouterError(reply: ErrorReply, { model }: Ctx): Response {
  const say = (fallback: string) => reply.message ?? fallback;
  if (reply.code === "context_length_exceeded") {
    return flavorError(
      "openrouter",
      reply.status,
      say(
        'This endpoint\'s maximum context length is 131072 tokens. However, you requested about 140000 tokens (140000 of text input). Please reduce the length of either one, or use the "middle-out" transform to compress your prompt automatically.',
      ),
    );
  }
  switch (reply.status) {
    case 401:
      return flavorError("openrouter", 401, say("User not found."));
    case 402:
      return flavorError("openrouter", 402, say("Insufficient credits. Add more using https://openrouter.ai/credits"));
    case 404:
      return flavorError("openrouter", 404, say(`No endpoints found for ${model}.`));
    case 429: {
      // OpenRouter reports its own limit reset as epoch milliseconds, in headers and in metadata.
      const reset = String(Date.now() + 20_000);
      const limits = { "X-RateLimit-Limit": "20", "X-RateLimit-Remaining": "0", "X-RateLimit-Reset": reset };
      const response = flavorError("openrouter", 429, say(`Rate limit exceeded: free-models-per-min.`), {
        metadata: { headers: limits },
      });
      for (const [name, value] of Object.entries(limits)) response.headers.set(name, value);
      return response;
    }
    case 502:
      return flavorError("openrouter", 502, say("Provider returned error"), {
        metadata: { raw: "upstream connect error", provider_name: "OpenAI" },
      });
    case 503:
      return flavorError("openrouter", 503, say("No instances available"));
    default:
      return flavorError(
        "openrouter",
        reply.status,
        say(reply.status >= 500 ? "Internal Server Error" : "Bad Request"),
      );
  }
}

function mistralError(reply: ErrorReply, { model }: Ctx): Response {
  const say = (fallback: string) => reply.message ?? fallback;
  if (reply.code === "context_length_exceeded") {
    return flavorError(
      "mistral",
      reply.status,
      say("Prompt contains 140000 tokens and 0 draft tokens, too large for model with 131072 maximum context length"),
    );
  }
  switch (reply.status) {
    case 401:
      return jsonResponse(401, { message: say("Unauthorized"), request_id: ids.hex("", 32) });
    case 404:
      return flavorError("mistral", 404, say(`Invalid model: ${model}`), { type: "invalid_model", code: "1500" });
    case 429:
      return flavorError("mistral", 429, say("Requests rate limit exceeded"), { code: "1300" });
    case 503:
      return flavorError("mistral", 503, say("Service unavailable."), { type: "service_unavailable" });
    default:
      return flavorError("mistral", reply.status, say(reply.status >= 500 ? "Internal server error" : "Bad request"));
  }
}

function ollamaError(reply: ErrorReply, { model }: Ctx): Response {
  const say = (fallback: string) => reply.message ?? fallback;
  if (reply.code === "context_length_exceeded") {
    return flavorError("ollama", reply.status, say("the input length exceeds the context length"));
  }
  if (reply.status === 404) return flavorError("ollama", 404, say(`model "${model}" not found, try pulling it first`));
  if (reply.status >= 500)
    return flavorError("ollama", reply.status, say("an error was encountered while running the model"));
  return flavorError("ollama", reply.status, say(`request failed with status ${reply.status}`));
}
