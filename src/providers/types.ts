import type { Effort } from "../config/sections/providers.ts";

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

/**
 * A file for a model that reads documents (a PDF from `fermix ask --attach`), as base64 with its file name. Like a
 * picture, only the turn that received it carries the bytes; history keeps a placeholder (see image-parts.ts).
 */
export type DocumentPart = { type: "document"; mime: "application/pdf"; name: string; data: string };

export type UserMessage = { role: "user"; content: Array<TextPart | ImagePart | DocumentPart> };
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

export type ModelRequest = {
  model: string;
  system: string;
  messages: Message[];
  tools?: ToolSpec[];
  /** Already clamped to what the provider and model accept; absent means "send no effort field". */
  effort?: Effort;
  maxOutputTokens?: number;
  /**
   * The final answer must be JSON matching this schema: each wire sends its native structured output
   * (structured-output.ts). Tool calls stay possible; only the answer text is constrained.
   */
  schema?: JsonSchema;
};

/** `length`: the model stopped at its output limit, so the answer is cut short (never silent: see TurnResult.truncated). */
export type StopReason = "stop" | "tool_use" | "length" | "other";
/**
 * One model call's tokens. `inputTokens` counts the whole prompt, cached part included; `cachedInputTokens` and
 * `reasoningTokens` are set only where the wire reports them (reasoning is part of `outputTokens`).
 */
export type Usage = { inputTokens: number; outputTokens: number; cachedInputTokens?: number; reasoningTokens?: number };

/**
 * What a wire yields. A stream always ends with exactly one `done` or one `error` event; wires never
 * throw (pi's StreamFunction contract), so the router sees every failure with its class.
 */
export type StreamEvent =
  | { type: "text_delta"; text: string }
  | { type: "tool_call"; call: ToolCallPart }
  | { type: "reasoning"; part: ReasoningPart }
  /**
   * One part of the model's reasoning summary, whole (Responses: `**Heading**` then a paragraph). For display
   * only: a chat's block streaming shows its heading; it is never part of the answer or the stored history. Not
   * output to the router: a call that fails after one is still retried or failed over (a `💭` line shown twice is
   * the lesser harm than a turn that could have been saved).
   */
  | { type: "reasoning_summary"; text: string }
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
  /**
   * A signed-in (OAuth) credential still failed after the wire's own refresh and retry: unlike a bad API
   * key, the next provider may well work, so this auth failure may fail over.
   */
  oauthResidual?: boolean;
  /** The refused credential was a subscription sign-in: `message` already says what to do (never "the API key"). */
  signedIn?: boolean;
};

export type WireId = "openai-responses" | "openai-chat" | "anthropic";

/** An access token as a signed-in profile gives it (src/auth's TokenSource satisfies this). */
export type BearerToken = { accessToken: string; expiresAt?: number; accountId?: string };

/** Where a signed-in provider's bearer comes from: read per request, refreshed once after a 401. */
export type BearerSource = {
  token(): Promise<BearerToken>;
  refreshAfterUnauthorized(rejected: string): Promise<BearerToken>;
};

/** A provider reached through a subscription sign-in instead of an API key. */
export type OAuthTarget = {
  tokens: BearerSource;
  /** The command that signs in again, for messages: `fermix auth login --provider codex`. */
  login: string;
  /** What an HTTP 403 means for this sign-in (xAI: the plan lacks API access), when it is not a stale token. */
  forbidden?: string;
};

/** Where and how to send one request: resolved from the descriptor, config and env. */
export type WireTarget = {
  provider: string;
  baseUrl: string;
  apiKey?: string;
  /** Extra static headers (OpenRouter attribution). */
  headers: Record<string, string>;
  /** Longest silence allowed between received bytes before the call is a transient timeout. */
  receiveTimeoutMs: number;
  /** Present when the credential is a signed-in profile; `apiKey` is then absent. */
  oauth?: OAuthTarget;
  /** The ChatGPT Codex backend: its headers, its body rules, and its reading of undelivered streams. */
  codex?: { fast: boolean };
  /** xAI (either sign-in): no effort for the Grok models that refuse one, no "/" in tool-schema enums (xai-quirks.ts). */
  xai?: true;
};

export type WireDeps = {
  fetch: typeof fetch;
  now?: () => number;
  /** A call that succeeded with a caveat worth a log line (a Codex stream that never said it finished). */
  warn?: (message: string) => void;
  /** The largest one server-sent event may grow (wires/_transport.ts's MAX_EVENT_BYTES unless a test sets less). */
  maxEventBytes?: number;
};

export type WireCall = {
  target: WireTarget;
  request: ModelRequest;
  signal?: AbortSignal;
};

export type Wire = {
  id: WireId;
  stream(call: WireCall, deps: WireDeps): AsyncIterable<StreamEvent>;
};
