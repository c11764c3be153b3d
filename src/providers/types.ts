/**
 * The neutral language every wire translates to and from. Nothing here knows a vendor's field
 * names; each wire maps these at its own edge.
 */
export type TextPart = { type: "text"; text: string };

/** A complete tool call: `arguments` is the parsed JSON object the model produced. */
export type ToolCallPart = {
  type: "tool_call";
  id: string;
  name: string;
  arguments: Record<string, unknown>;
};

/**
 * Provider-private reasoning that must be sent back verbatim on the next call of the same wire
 * (Anthropic thinking signatures, OpenAI encrypted reasoning). Other wires drop it.
 */
export type ReasoningPart = { type: "reasoning"; wire: WireId; data: unknown };

/**
 * A picture for a vision model, as base64 (every wire sends base64: a data URL or a base64 source). Only the
 * turn that received it carries the bytes; history keeps a short text placeholder instead (see image-parts.ts).
 */
export type ImagePart = { type: "image"; mime: string; data: string };

export type UserMessage = { role: "user"; content: Array<TextPart | ImagePart> };
export type AssistantMessage = { role: "assistant"; content: Array<TextPart | ToolCallPart | ReasoningPart> };
export type ToolResultMessage = {
  role: "tool";
  toolCallId: string;
  toolName: string;
  content: string;
  isError?: boolean;
};
export type Message = UserMessage | AssistantMessage | ToolResultMessage;

export type JsonSchema = Record<string, unknown>;
export type ToolSpec = { name: string; description: string; parameters: JsonSchema };

export const EFFORTS = ["none", "low", "medium", "high", "xhigh", "max"] as const;
export type Effort = (typeof EFFORTS)[number];

export type ModelRequest = {
  model: string;
  system: string;
  messages: Message[];
  tools?: ToolSpec[];
  /** Already clamped to what the provider and model accept; absent means "send no effort field". */
  effort?: Effort;
  maxOutputTokens?: number;
};

export type StopReason = "stop" | "tool_use" | "length" | "other";
export type Usage = { inputTokens: number; outputTokens: number };

/**
 * What a wire yields. A stream always ends with exactly one `done` or one `error` event; wires never
 * throw (pi's StreamFunction contract), so the router sees every failure with its class.
 */
export type StreamEvent =
  | { type: "text_delta"; text: string }
  | { type: "tool_call"; call: ToolCallPart }
  | { type: "reasoning"; part: ReasoningPart }
  | { type: "done"; stopReason: StopReason; usage?: Usage }
  | { type: "error"; error: ProviderFailure };

/**
 * Why a call failed, in the terms the router and the CLI act on:
 * - transient: 5xx, overload, connection refused/reset, receive timeout, a stream cut with no reason.
 *   Retried on the same provider, then failed over (only before visible output).
 * - rate_limit: 429 / quota. Failed over; surfaced as "usage limit — try again in ~N min" when a reset
 *   time is known.
 * - auth: bad or missing credential. Never failed over; the message says how to fix the key.
 * - context_length: the prompt does not fit. Never failed over.
 * - invalid_request: any other 4xx (unknown model, bad field). Never failed over.
 * - cancelled: the caller aborted.
 */
export type FailureClass = "transient" | "rate_limit" | "auth" | "context_length" | "invalid_request" | "cancelled";

export type ProviderFailure = {
  class: FailureClass;
  provider: string;
  message: string;
  status?: number;
  /** When a rate limit lifts, as epoch milliseconds, if the provider said. */
  retryAt?: number;
  /** The vendor's own error type/code, for logs and traces. */
  vendorCode?: string;
};

export type WireId = "openai-responses" | "openai-chat" | "anthropic";

/** Where and how to send one request: resolved from the descriptor, config and env. */
export type WireTarget = {
  provider: string;
  baseUrl: string;
  apiKey?: string;
  /** Extra static headers (OpenRouter attribution). */
  headers: Record<string, string>;
  /** Longest silence allowed between received bytes before the call is a transient timeout. */
  receiveTimeoutMs: number;
};

export type WireDeps = { fetch: typeof fetch; now?: () => number };

export type WireCall = {
  target: WireTarget;
  request: ModelRequest;
  signal?: AbortSignal;
};

export type Wire = {
  id: WireId;
  stream(call: WireCall, deps: WireDeps): AsyncIterable<StreamEvent>;
};
