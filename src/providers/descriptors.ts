import type { Effort } from "../config/sections/providers.ts";
import type { WireId } from "./types.ts";

/**
 * One declarative entry per provider. Adding a provider that speaks an existing wire is one entry
 * here; the order of this list is the failover order of fallbacks (Ollama last on purpose: a local
 * model is the last-resort hop).
 */
export type ProviderDescriptor = {
  id: string;
  label: string;
  wire: WireId;
  defaultBaseUrl: string;
  env: { apiKey?: string; baseUrl?: string };
  authModes: Array<"api_key" | "oauth" | "none">;
  /** Keyless providers are configured by their base URL alone (Ollama). */
  keyless: boolean;
  defaultModel: string;
  contextWindow: number;
  /** Lowest and highest effort the provider accepts; absent means no effort field is ever sent. */
  effort?: { floor: Effort; ceiling: Effort };
  headers?: Record<string, string>;
  receiveTimeoutMs: number;
  /** Where a person gets a key, for error messages. */
  keyHelp?: string;
  /**
   * The subscription sign-in this provider can use instead of a key (auth_mode = "oauth"; Codex has no
   * other): the auth.json profile, the `fermix auth login --provider` name, and what a 403 means when it
   * is not a stale token.
   */
  oauth?: { profile: "openai_codex" | "anthropic_oauth" | "xai_oauth"; login: string; forbidden?: string };
};

const DEFAULT_RECEIVE_TIMEOUT_MS = 120_000;
/** The Codex SSE idle window; routes double it for xhigh and max, which think silently for longer. */
export const CODEX_IDLE_MS = 60_000;

export const PROVIDERS: readonly ProviderDescriptor[] = [
  {
    // A ChatGPT plan, signed in with `fermix auth login --provider codex`: no key exists for it.
    id: "openai_codex",
    label: "OpenAI Codex (ChatGPT plan)",
    wire: "openai-responses",
    defaultBaseUrl: "https://chatgpt.com/backend-api/codex",
    env: {},
    authModes: ["oauth"],
    keyless: false,
    defaultModel: "gpt-5.5",
    contextWindow: 400_000,
    effort: { floor: "none", ceiling: "max" },
    receiveTimeoutMs: CODEX_IDLE_MS,
    oauth: { profile: "openai_codex", login: "fermix auth login --provider codex" },
  },
  {
    id: "openai",
    label: "OpenAI",
    wire: "openai-responses",
    defaultBaseUrl: "https://api.openai.com/v1",
    env: { apiKey: "OPENAI_API_KEY", baseUrl: "OPENAI_BASE_URL" },
    authModes: ["api_key"],
    keyless: false,
    defaultModel: "gpt-5.5",
    contextWindow: 400_000,
    effort: { floor: "none", ceiling: "max" },
    receiveTimeoutMs: DEFAULT_RECEIVE_TIMEOUT_MS,
    keyHelp: "https://platform.openai.com/api-keys",
  },
  {
    id: "anthropic",
    label: "Anthropic",
    wire: "anthropic",
    defaultBaseUrl: "https://api.anthropic.com",
    env: { apiKey: "ANTHROPIC_API_KEY", baseUrl: "ANTHROPIC_BASE_URL" },
    authModes: ["api_key", "oauth"],
    keyless: false,
    defaultModel: "claude-sonnet-4-6",
    contextWindow: 200_000,
    effort: { floor: "low", ceiling: "max" },
    receiveTimeoutMs: DEFAULT_RECEIVE_TIMEOUT_MS,
    keyHelp: "https://console.anthropic.com/settings/keys",
    oauth: { profile: "anthropic_oauth", login: "fermix auth login --provider anthropic" },
  },
  {
    id: "xai",
    label: "SpaceXAI Grok",
    wire: "openai-responses",
    defaultBaseUrl: "https://api.x.ai/v1",
    env: { apiKey: "XAI_API_KEY" },
    authModes: ["api_key", "oauth"],
    keyless: false,
    defaultModel: "grok-4",
    contextWindow: 256_000,
    effort: { floor: "none", ceiling: "high" },
    receiveTimeoutMs: DEFAULT_RECEIVE_TIMEOUT_MS,
    keyHelp: "https://console.x.ai",
    oauth: {
      profile: "xai_oauth",
      login: "fermix auth login --provider xai",
      forbidden:
        'xai refused the signed-in Grok account (HTTP 403): your Grok plan lacks API access. This is not a stale token, so signing in again will not help; use a plan with API access, or set auth_mode = "api_key" with an XAI_API_KEY in [fermix_core.providers.xai]',
    },
  },
  {
    id: "openrouter",
    label: "OpenRouter",
    wire: "openai-chat",
    defaultBaseUrl: "https://openrouter.ai/api/v1",
    env: { apiKey: "OPENROUTER_API_KEY" },
    authModes: ["api_key"],
    keyless: false,
    defaultModel: "anthropic/claude-sonnet-4.6",
    contextWindow: 200_000,
    headers: { "HTTP-Referer": "https://fermix.sh", "X-Title": "Fermix" },
    receiveTimeoutMs: DEFAULT_RECEIVE_TIMEOUT_MS,
    keyHelp: "https://openrouter.ai/keys",
  },
  {
    id: "mistral",
    label: "Mistral",
    wire: "openai-chat",
    defaultBaseUrl: "https://api.mistral.ai/v1",
    env: { apiKey: "MISTRAL_API_KEY" },
    authModes: ["api_key"],
    keyless: false,
    defaultModel: "mistral-large-latest",
    contextWindow: 128_000,
    receiveTimeoutMs: DEFAULT_RECEIVE_TIMEOUT_MS,
    keyHelp: "https://console.mistral.ai/api-keys",
  },
  {
    id: "ollama",
    label: "Ollama",
    wire: "openai-chat",
    defaultBaseUrl: "http://localhost:11434/v1",
    env: { baseUrl: "OLLAMA_BASE_URL" },
    authModes: ["none"],
    keyless: true,
    defaultModel: "llama3.2",
    contextWindow: 128_000,
    // Local inference can be slow to produce its first token.
    receiveTimeoutMs: 300_000,
  },
];

export const PROVIDER_IDS = PROVIDERS.map((p) => p.id);

export function findProvider(id: string): ProviderDescriptor | undefined {
  return PROVIDERS.find((p) => p.id === id);
}
