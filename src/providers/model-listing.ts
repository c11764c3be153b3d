import * as v from "valibot";
import { HttpRequestFailed, type JsonFetch, requestJson } from "../net/json-client.ts";
import type { ModelListing, ModelListingService } from "./model-listing-contract.ts";

/**
 * The model pickers of the web setup panes (spec: self-knowledge.md, Providers): Ollama's installed models from one
 * GET /api/tags, and OpenRouter's live catalogue (GET /models), tool-capable models only, newest first. Either
 * answers with the models or with the sentence the pane shows above a free-form input; nothing here throws. The
 * static catalog stays authoritative for defaults and context windows — this only fills a <select>.
 */

export type ModelListingDeps = {
  /** For tests; the platform's fetch otherwise. The URLs are the owner's configured ones, so loopback is fine. */
  fetch?: JsonFetch;
  timeoutMs?: number;
  now?: () => number;
  /** How long a good OpenRouter catalogue is reused (the page re-renders on every form post). */
  cacheMs?: number;
};

export const OLLAMA_DEFAULT_BASE = "http://localhost:11434/v1";
export const OPENROUTER_DEFAULT_BASE = "https://openrouter.ai/api/v1";
const DEFAULT_TIMEOUT_MS = 3_000;
const DEFAULT_CACHE_MS = 5 * 60_000;
// The OpenRouter catalogue is a few hundred entries with descriptions: a few MB at most. A listing past this is
// not read on (the JSON client stops the body there) and the picker says the answer was too large.
const MAX_BYTES = 16 * 1024 * 1024;

// Only the fields the pickers read; anything else in an entry is the vendor's business.
const OllamaTags = v.object({ models: v.array(v.object({ name: v.pipe(v.string(), v.minLength(1)) })) });
const OpenRouterModels = v.object({
  data: v.array(
    v.object({
      id: v.pipe(v.string(), v.minLength(1)),
      created: v.optional(v.nullable(v.number())),
      supported_parameters: v.optional(v.nullable(v.array(v.string()))),
    }),
  ),
});

export function createModelListing(deps: ModelListingDeps = {}): ModelListingService {
  const timeoutMs = deps.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  const now = deps.now ?? Date.now;
  const cacheMs = deps.cacheMs ?? DEFAULT_CACHE_MS;
  const cache = new Map<string, { at: number; models: string[] }>();

  async function get(url: string): Promise<{ ok: true; body: unknown } | { ok: false; reason: string }> {
    try {
      const answer = await requestJson(url, { timeoutMs, maxBytes: MAX_BYTES }, { fetch: deps.fetch });
      if (!answer.ok) return { ok: false, reason: `it answered HTTP ${answer.status}${vendorMessage(answer.body)}` };
      if (!answer.json) return { ok: false, reason: "its answer is not JSON" };
      return { ok: true, body: answer.body };
    } catch (err) {
      if (HttpRequestFailed.is(err)) return { ok: false, reason: err.message };
      throw err;
    }
  }

  return {
    async ollama(baseUrl: string | undefined): Promise<ModelListing> {
      const root = trimmed(baseUrl || OLLAMA_DEFAULT_BASE).replace(/\/v1$/, "");
      const guidance = `Start it with \`ollama serve\` (install it from https://ollama.com/download), or correct the base URL; meanwhile type the model name.`;
      const got = await get(`${root}/api/tags`);
      if (!got.ok) return { ok: false, error: `Ollama is not answering at ${shown(root)}: ${got.reason}. ${guidance}` };
      const parsed = v.safeParse(OllamaTags, got.body);
      if (!parsed.success) {
        return { ok: false, error: `${shown(root)} did not answer /api/tags as Ollama does. ${guidance}` };
      }
      return { ok: true, models: [...new Set(parsed.output.models.map((m) => m.name))] };
    },

    async openrouter(baseUrl: string | undefined): Promise<ModelListing> {
      const url = `${trimmed(baseUrl || OPENROUTER_DEFAULT_BASE)}/models`;
      const hit = cache.get(url);
      if (hit && now() - hit.at < cacheMs) return { ok: true, models: hit.models };
      const failed = (why: string): ModelListing => ({
        ok: false,
        error: `Could not list OpenRouter's models from ${shown(url)}: ${why}. Type a model id (vendor/model, such as anthropic/claude-sonnet-4.6).`,
      });
      const got = await get(url);
      if (!got.ok) return failed(got.reason);
      const parsed = v.safeParse(OpenRouterModels, got.body);
      if (!parsed.success) return failed("the answer is not OpenRouter's model list");
      const models = parsed.output.data
        .filter((m) => m.supported_parameters?.includes("tools"))
        .sort((a, b) => (b.created ?? 0) - (a.created ?? 0))
        .map((m) => m.id);
      cache.set(url, { at: now(), models });
      return { ok: true, models };
    },
  };
}

/** `llama3.2` is `llama3.2:latest` to Ollama. */
export function sameOllamaModel(listed: string, wanted: string): boolean {
  return listed === wanted || (!wanted.includes(":") && listed === `${wanted}:latest`);
}

function trimmed(url: string): string {
  return url.trim().replace(/\/+$/, "");
}

/** A URL as the page shows it: no credentials, no query. */
function shown(url: string): string {
  try {
    const u = new URL(url);
    return `${u.protocol}//${u.host}${u.pathname}`.replace(/\/$/, "");
  } catch {
    return "(an unparsable URL)";
  }
}

/** The vendor's own short sentence from an error body ({"error": "…"} or {"error": {"message": "…"}}), if any. */
function vendorMessage(body: unknown): string {
  const error = (body as { error?: unknown } | undefined)?.error;
  const message = typeof error === "string" ? error : (error as { message?: unknown } | undefined)?.message;
  return typeof message === "string" && message ? ` (${message.slice(0, 200)})` : "";
}
