/**
 * Conversation checks the real Chat Completions hosts run before any model sees the request. They
 * catch the classic agent-loop bugs: a tool result with no matching call, a call never answered, and
 * Mistral's stricter message schema.
 */
import { type Flavor, flavorError } from "./chat-flavor-errors.ts";
import { isBase64, openAiImageUrlProblem, parseDataUrl } from "./image-data.ts";
import { openAiInvalid } from "./openai-errors.ts";
import { isObject } from "./wire-kit.ts";

type Msg = Record<string, any>;

export function checkConversation(flavor: Flavor, messages: Msg[]): Response | null {
  if (flavor === "ollama") return null; // Ollama templates whatever it gets
  if (flavor === "mistral") return checkMistral(messages);
  const problem = findPairingProblem(messages);
  if (!problem) return null;
  if (flavor === "generic") return openAiInvalid(problem.message, `messages.[${problem.index}].role`);
  // OpenRouter relays the upstream provider's 400 under its own envelope.
  return flavorError(flavor, 400, "Provider returned error", { metadata: { raw: problem.message } });
}

function hasToolCalls(m: Msg): boolean {
  return Array.isArray(m.tool_calls) && m.tool_calls.length > 0;
}

/** OpenAI's rule: tool messages answer the assistant turn right before them, one per tool_call_id. */
function findPairingProblem(messages: Msg[]): { index: number; message: string } | null {
  for (let i = 0; i < messages.length; i++) {
    const m = messages[i]!;
    if (m.role === "tool") {
      let j = i - 1;
      while (j >= 0 && messages[j]!.role === "tool") j--;
      const owner = messages[j];
      const ownerIds = owner && hasToolCalls(owner) ? owner.tool_calls.map((c: Msg) => c.id) : [];
      if (!ownerIds.includes(m.tool_call_id)) {
        return {
          index: i,
          message:
            "Invalid parameter: messages with role 'tool' must be a response to a preceeding message with 'tool_calls'.",
        };
      }
    }
    if (m.role === "assistant" && hasToolCalls(m)) {
      const answered = new Set<string>();
      for (let k = i + 1; k < messages.length && messages[k]!.role === "tool"; k++) {
        answered.add(messages[k]!.tool_call_id);
      }
      const missing = m.tool_calls.map((c: Msg) => c.id).filter((id: string) => !answered.has(id));
      if (missing.length > 0) {
        return {
          index: i,
          message: `An assistant message with 'tool_calls' must be followed by tool messages responding to each 'tool_call_id'. The following tool_call_ids did not have response messages: ${missing.join(", ")}`,
        };
      }
    }
  }
  return null;
}

function checkMistral(messages: Msg[]): Response | null {
  const mistral = (status: number, message: string, type: string, code: string | null = null) =>
    flavorError("mistral", status, message, { type, code });
  let calls = 0;
  let results = 0;
  for (let i = 0; i < messages.length; i++) {
    const m = messages[i]!;
    if (m.role === "assistant") {
      // Mistral's schema treats content and tool_calls as exclusive: the mere key counts, even "" or null.
      if (hasToolCalls(m) && "content" in m) {
        return mistral(
          422,
          "Assistant message must have either content or tool_calls, but not both.",
          "invalid_request_message_error",
        );
      }
      if (!hasToolCalls(m) && (m.content === undefined || m.content === null || m.content === "")) {
        return mistral(
          400,
          "Assistant message must have either content or tool_calls, but not none.",
          "invalid_request_message_error",
        );
      }
      if (hasToolCalls(m)) calls += m.tool_calls.length;
    }
    if (m.role === "tool") results++;
    if (m.role === "user" && messages[i - 1]?.role === "tool") {
      return mistral(400, "Unexpected role 'user' after role 'tool'", "invalid_request_message_order", "3230");
    }
  }
  if (calls !== results) {
    return mistral(400, "Not the same number of function calls and responses", "invalid_request_message_error");
  }
  return null;
}

/** Shape checks every flavor shares: `messages` is a non-empty array of objects with a role. */
export function checkMessagesShape(messages: unknown): { message: string; param: string; code: string } | null {
  if (messages === undefined) {
    return {
      message: "Missing required parameter: 'messages'.",
      param: "messages",
      code: "missing_required_parameter",
    };
  }
  if (!Array.isArray(messages)) {
    return { message: "Invalid type for 'messages': expected an array.", param: "messages", code: "invalid_type" };
  }
  if (messages.length === 0) {
    return {
      message:
        "Invalid 'messages': empty array. Expected an array with minimum length 1, but got an empty array instead.",
      param: "messages",
      code: "empty_array",
    };
  }
  const bad = messages.findIndex((m) => !isObject(m) || typeof m.role !== "string");
  if (bad >= 0) {
    return {
      message: `Missing required parameter: 'messages[${bad}].role'.`,
      param: `messages[${bad}].role`,
      code: "missing_required_parameter",
    };
  }
  return null;
}

/**
 * Image parts in a content array (`{type: "image_url", image_url: {url}}`): OpenAI and the hosts relaying to
 * vision models decode the data URL before any model sees it; Ollama takes base64 data URLs only.
 */
export function checkImageParts(flavor: Flavor, messages: Msg[]): Response | null {
  for (let i = 0; i < messages.length; i++) {
    const content = messages[i]!.content;
    if (!Array.isArray(content)) continue;
    for (let j = 0; j < content.length; j++) {
      const part = content[j];
      if (!isObject(part) || part.type !== "image_url") continue;
      const param = `messages[${i}].content[${j}].image_url.url`;
      // Mistral also takes the URL as a plain string.
      const url = flavor === "mistral" && typeof part.image_url === "string" ? part.image_url : part.image_url?.url;
      if (flavor === "ollama") {
        const parsed = typeof url === "string" ? parseDataUrl(url) : undefined;
        if (!parsed) {
          return flavorError(
            flavor,
            400,
            "image URLs are not currently supported, please use base64 encoded data instead",
          );
        }
        if (!isBase64(parsed.data)) return flavorError(flavor, 400, "illegal base64 data at input byte 0");
        continue;
      }
      const problem = openAiImageUrlProblem(url, param, `Invalid image URL: '${param}'.`);
      if (!problem) continue;
      return flavor === "generic"
        ? openAiInvalid(problem.message, problem.code === "invalid_image_format" ? null : param, problem.code)
        : flavorError(flavor, 400, problem.message);
    }
  }
  return null;
}
