/**
 * A fake of the providers' model-listing endpoints on 127.0.0.1 — what `fermix doctor` and the setup
 * wizard probe. Each flavor answers in its vendor's shapes and rejects what the vendor rejects:
 * - openai (also xai, mistral): GET /v1/models, GET /v1/models/{id}; Bearer key; OpenAI's 401 body echoes a
 *   masked key, which a probe must never copy into its output.
 * - anthropic: GET /v1/models, GET /v1/models/{id}; x-api-key and anthropic-version required.
 * - openrouter: GET /api/v1/key (the only one that checks the key), GET /api/v1/models/{author}/{slug}/endpoints.
 * - ollama: GET /api/tags, POST /api/show, GET /api/ps; keyless.
 */
import type { RecordedRequest } from "./types.ts";

export type ModelApiFlavor = "openai" | "anthropic" | "openrouter" | "ollama";

export type OllamaModel = {
  name: string;
  /** `*.context_length` in model_info: what the model was trained for. */
  contextLength?: number;
  /** A `num_ctx` PARAMETER in its Modelfile. */
  numCtx?: number;
  /** Loaded now, with this context (shown by /api/ps). */
  loadedContext?: number;
};

export type ModelApiOptions = {
  flavor: ModelApiFlavor;
  apiKey?: string;
  /** Model ids served (openai, anthropic, openrouter). */
  models?: string[];
  /** Ids the API resolves by id though its list does not show them (aliases). */
  aliases?: string[];
  ollama?: OllamaModel[];
  /** Accept requests and never answer them. */
  hang?: boolean;
};

export type FakeModelApi = {
  /** What a client puts in OPENAI_BASE_URL / ANTHROPIC_BASE_URL / OLLAMA_BASE_URL / base_url. */
  baseUrl: string;
  origin: string;
  requests: RecordedRequest[];
  close(): Promise<void>;
};

const json = (status: number, body: unknown) =>
  new Response(JSON.stringify(body), { status, headers: { "content-type": "application/json" } });

export async function startFakeModelApi(opts: ModelApiOptions): Promise<FakeModelApi> {
  const requests: RecordedRequest[] = [];
  const parked = new Set<() => void>();
  const server = Bun.serve({
    hostname: "127.0.0.1",
    port: 0,
    idleTimeout: 0,
    async fetch(req) {
      const url = new URL(req.url);
      const text = await req.text();
      let body: unknown;
      try {
        body = text ? JSON.parse(text) : undefined;
      } catch {
        body = text;
      }
      requests.push({
        path: url.pathname,
        method: req.method,
        headers: Object.fromEntries(req.headers),
        body,
        bytes: Buffer.byteLength(text),
        receivedAt: Date.now(),
      });
      if (opts.hang) {
        await new Promise<void>((resolve) => parked.add(resolve));
        return new Response(null, { status: 503 });
      }
      const headers = Object.fromEntries(req.headers);
      switch (opts.flavor) {
        case "openai":
          return openai(opts, req.method, url.pathname, headers);
        case "anthropic":
          return anthropic(opts, req.method, url.pathname, headers);
        case "openrouter":
          return openrouter(opts, req.method, url.pathname, headers);
        case "ollama":
          return ollama(opts, req.method, url.pathname, body);
      }
    },
  });
  const origin = `http://127.0.0.1:${server.port}`;
  const baseUrl =
    opts.flavor === "anthropic" ? origin : opts.flavor === "openrouter" ? `${origin}/api/v1` : `${origin}/v1`;
  return {
    baseUrl,
    origin,
    requests,
    async close() {
      await server.stop(true);
      for (const release of parked) release();
      parked.clear();
    },
  };
}

function bearer(headers: Record<string, string>): string | undefined {
  const match = /^Bearer\s+(.+)$/i.exec(headers.authorization ?? "");
  return match?.[1];
}

function masked(key: string): string {
  return `${key.slice(0, 3)}***${key.slice(-4)}`;
}

function openai(opts: ModelApiOptions, method: string, path: string, headers: Record<string, string>): Response {
  const key = bearer(headers);
  if (!key) {
    return json(401, {
      error: {
        message: "You didn't provide an API key.",
        type: "invalid_request_error",
        param: null,
        code: null,
      },
    });
  }
  if (key !== opts.apiKey) {
    return json(401, {
      error: {
        message: `Incorrect API key provided: ${masked(key)}. You can find your API key at https://platform.openai.com/account/api-keys.`,
        type: "invalid_request_error",
        param: null,
        code: "invalid_api_key",
      },
    });
  }
  const models = opts.models ?? [];
  if (method === "GET" && path === "/v1/models") {
    return json(200, {
      object: "list",
      data: models.map((id) => ({ id, object: "model", created: 1_700_000_000, owned_by: "system" })),
    });
  }
  const one = /^\/v1\/models\/(.+)$/.exec(path);
  if (method === "GET" && one) {
    const id = decodeURIComponent(one[1]!);
    if (models.includes(id) || opts.aliases?.includes(id)) {
      return json(200, { id, object: "model", created: 1_700_000_000, owned_by: "system" });
    }
    return json(404, {
      error: {
        message: `The model \`${id}\` does not exist or you do not have access to it.`,
        type: "invalid_request_error",
        param: null,
        code: "model_not_found",
      },
    });
  }
  return json(404, { error: { message: `Invalid URL (${method} ${path})`, type: "invalid_request_error" } });
}

function anthropic(opts: ModelApiOptions, method: string, path: string, headers: Record<string, string>): Response {
  const error = (status: number, type: string, message: string) =>
    json(status, { type: "error", error: { type, message } });
  const key = headers["x-api-key"] ?? bearer(headers);
  if (!key) return error(401, "authentication_error", "x-api-key header is required");
  if (key !== opts.apiKey) return error(401, "authentication_error", "invalid x-api-key");
  if (!headers["anthropic-version"]) return error(400, "invalid_request_error", "anthropic-version header is required");
  const models = opts.models ?? [];
  const entry = (id: string) => ({ type: "model", id, display_name: id, created_at: "2026-01-01T00:00:00Z" });
  if (method === "GET" && path === "/v1/models") {
    return json(200, {
      data: models.map(entry),
      has_more: false,
      first_id: models[0] ?? null,
      last_id: models.at(-1) ?? null,
    });
  }
  const one = /^\/v1\/models\/(.+)$/.exec(path);
  if (method === "GET" && one) {
    const id = decodeURIComponent(one[1]!);
    if (models.includes(id) || opts.aliases?.includes(id)) return json(200, entry(id));
    return error(404, "not_found_error", `model: ${id}`);
  }
  return error(404, "not_found_error", "Not found");
}

function openrouter(opts: ModelApiOptions, method: string, path: string, headers: Record<string, string>): Response {
  const error = (status: number, message: string) => json(status, { error: { message, code: status } });
  const endpoints = /^\/api\/v1\/models\/(.+)\/endpoints$/.exec(path);
  if (method === "GET" && endpoints) {
    // Public, like the model list: no key needed.
    const id = endpoints[1]!.split("/").map(decodeURIComponent).join("/");
    if (!(opts.models ?? []).includes(id)) return error(404, "Model not found");
    return json(200, { data: { id, name: id, endpoints: [{ provider_name: "Fake", context_length: 200_000 }] } });
  }
  if (method === "GET" && path === "/api/v1/key") {
    const key = bearer(headers);
    if (!key) return error(401, "No auth credentials found");
    if (key !== opts.apiKey) return error(401, "User not found.");
    return json(200, { data: { label: "sk-or-v1-***", usage: 0, limit: null, is_free_tier: false } });
  }
  return error(404, "Not Found");
}

function ollama(opts: ModelApiOptions, method: string, path: string, body: unknown): Response {
  const models = opts.ollama ?? [];
  const find = (name: unknown) =>
    models.find((m) => m.name === name || (typeof name === "string" && m.name === `${name}:latest`));
  if (method === "GET" && path === "/api/tags") {
    return json(200, {
      models: models.map((m) => ({
        name: m.name,
        model: m.name,
        modified_at: "2026-01-01T00:00:00Z",
        size: 2_019_393_189,
        digest: "a80c4f17acd55265feec403c7aef86be0c25983ab279d83f3bcd3abbcb5b8b72",
        details: { format: "gguf", family: "llama", parameter_size: "3.2B", quantization_level: "Q4_K_M" },
      })),
    });
  }
  if (method === "POST" && path === "/api/show") {
    const wanted =
      (body as { model?: unknown; name?: unknown } | undefined)?.model ?? (body as { name?: unknown })?.name;
    const m = find(wanted);
    if (!m) return json(404, { error: `model '${String(wanted)}' not found` });
    const parameters = [
      ...(m.numCtx !== undefined ? [`num_ctx                        ${m.numCtx}`] : []),
      'stop                           "<|eot_id|>"',
    ].join("\n");
    return json(200, {
      license: "LLAMA 3.2 COMMUNITY LICENSE AGREEMENT",
      modelfile: `FROM ${m.name}\n`,
      parameters,
      template: "{{ .Prompt }}",
      details: { format: "gguf", family: "llama", parameter_size: "3.2B", quantization_level: "Q4_K_M" },
      model_info: {
        "general.architecture": "llama",
        "general.parameter_count": 3_212_749_888,
        ...(m.contextLength !== undefined ? { "llama.context_length": m.contextLength } : {}),
      },
      capabilities: ["completion", "tools"],
    });
  }
  if (method === "GET" && path === "/api/ps") {
    return json(200, {
      models: models
        .filter((m) => m.loadedContext !== undefined)
        .map((m) => ({
          name: m.name,
          model: m.name,
          size: 3_000_000_000,
          expires_at: "2026-01-01T00:05:00Z",
          size_vram: 3_000_000_000,
          context_length: m.loadedContext,
        })),
    });
  }
  return new Response("404 page not found", { status: 404, headers: { "content-type": "text/plain" } });
}
