/**
 * A fake of the two live model listings the web setup panes read, on 127.0.0.1, in the vendors' shapes:
 * - Ollama: GET /api/tags → {"models":[{name, model, modified_at, size, digest, details}]}; an unknown path is
 *   Ollama's plain-text "404 page not found".
 * - OpenRouter: GET /api/v1/models → {"data":[{id, canonical_slug, name, created, context_length, architecture,
 *   pricing, top_provider, supported_parameters, …}]}; its errors are {"error":{"message","code"}}.
 * `mode` scripts a failure: OpenRouter's 503 error body, or a 200 whose body is not the listing.
 */
import type { RecordedRequest } from "./types.ts";

export type OpenRouterEntry = { id: string; created: number; tools: boolean };

export type ModelListingApiOptions = {
  ollama?: string[];
  openrouter?: OpenRouterEntry[];
  mode?: "ok" | "error" | "malformed";
};

export type FakeModelListingApi = {
  origin: string;
  /** Ollama's OpenAI-compatible base URL, as [fermix_core.providers.ollama] base_url holds it. */
  ollamaBaseUrl: string;
  /** OpenRouter's base URL, as [fermix_core.providers.openrouter] base_url holds it. */
  openrouterBaseUrl: string;
  requests: RecordedRequest[];
  setMode(mode: ModelListingApiOptions["mode"]): void;
  close(): Promise<void>;
};

const json = (status: number, body: unknown) =>
  new Response(JSON.stringify(body), { status, headers: { "content-type": "application/json" } });

export async function startFakeModelListingApi(opts: ModelListingApiOptions): Promise<FakeModelListingApi> {
  const requests: RecordedRequest[] = [];
  let mode = opts.mode ?? "ok";
  const server = Bun.serve({
    hostname: "127.0.0.1",
    port: 0,
    fetch(req) {
      const url = new URL(req.url);
      requests.push({
        path: url.pathname,
        method: req.method,
        headers: Object.fromEntries(req.headers),
        body: undefined,
        bytes: 0,
        receivedAt: Date.now(),
      });
      if (req.method === "GET" && url.pathname === "/api/tags") {
        if (mode === "error") return json(500, { error: "llama runner process has terminated" });
        if (mode === "malformed") return json(200, { tags: "nope" });
        return json(200, { models: (opts.ollama ?? []).map(ollamaEntry) });
      }
      if (req.method === "GET" && url.pathname === "/api/v1/models") {
        if (mode === "error") return json(503, { error: { message: "Service temporarily unavailable", code: 503 } });
        if (mode === "malformed") return json(200, { data: [{ name: "no id here" }] });
        return json(200, { data: (opts.openrouter ?? []).map(openrouterEntry) });
      }
      if (url.pathname.startsWith("/api/v1/")) return json(404, { error: { message: "Not Found", code: 404 } });
      return new Response("404 page not found", { status: 404, headers: { "content-type": "text/plain" } });
    },
  });
  const origin = `http://127.0.0.1:${server.port}`;
  return {
    origin,
    ollamaBaseUrl: `${origin}/v1`,
    openrouterBaseUrl: `${origin}/api/v1`,
    requests,
    setMode: (next) => {
      mode = next ?? "ok";
    },
    close: async () => {
      await server.stop(true);
    },
  };
}

function ollamaEntry(name: string) {
  return {
    name,
    model: name,
    modified_at: "2026-01-01T00:00:00.000000000Z",
    size: 2_019_393_189,
    digest: "a80c4f17acd55265feec403c7aef86be0c25983ab279d83f3bcd3abbcb5b8b72",
    details: {
      parent_model: "",
      format: "gguf",
      family: "llama",
      families: ["llama"],
      parameter_size: "3.2B",
      quantization_level: "Q4_K_M",
    },
  };
}

function openrouterEntry(m: OpenRouterEntry) {
  return {
    id: m.id,
    canonical_slug: m.id,
    hugging_face_id: "",
    name: m.id,
    created: m.created,
    description: `${m.id}, as listed by the fake`,
    context_length: 200_000,
    architecture: {
      modality: "text->text",
      input_modalities: ["text"],
      output_modalities: ["text"],
      tokenizer: "Other",
      instruct_type: null,
    },
    pricing: { prompt: "0.000003", completion: "0.000015", request: "0", image: "0" },
    top_provider: { context_length: 200_000, max_completion_tokens: 64_000, is_moderated: false },
    per_request_limits: null,
    supported_parameters: m.tools
      ? ["max_tokens", "temperature", "tools", "tool_choice", "response_format"]
      : ["max_tokens", "temperature", "top_p"],
  };
}
