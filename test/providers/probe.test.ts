import { describe, expect, test } from "bun:test";
import { probeProvider } from "../../src/providers/probe.ts";
import { resolveRoutes } from "../../src/providers/routes.ts";
import { type ModelApiOptions, startFakeModelApi } from "../fake/model-api.ts";
import { cleanupAfterEach } from "../fixture/cleanup.ts";

const defer = cleanupAfterEach();
const KEY = "sk-test-probe-0123456789abcdef";
const WRONG = "sk-wrong-probe-fedcba9876543210";

async function fake(opts: ModelApiOptions) {
  const api = await startFakeModelApi(opts);
  defer(() => api.close());
  return api;
}

/** A loopback port with nothing listening: connection refused. */
async function closedPort(): Promise<string> {
  const server = Bun.serve({ hostname: "127.0.0.1", port: 0, fetch: () => new Response() });
  const url = `http://127.0.0.1:${server.port}`;
  await server.stop(true);
  return url;
}

/** Neither the key nor the masked form OpenAI's 401 body echoes (`sk-***cdef`). */
function expectNoSecret(result: unknown, ...secrets: string[]) {
  const text = JSON.stringify(result);
  for (const s of secrets) {
    expect(text).not.toContain(s);
    expect(text).not.toContain(`${s.slice(0, 3)}***${s.slice(-4)}`);
  }
}

describe("OpenAI-compatible providers", () => {
  test("a listed model with an accepted key is ok, and the request carries the key as a Bearer token", async () => {
    const api = await fake({ flavor: "openai", apiKey: KEY, models: ["gpt-5.5", "gpt-5.4"] });
    const result = await probeProvider({ provider: "openai", baseUrl: api.baseUrl, apiKey: KEY, model: "gpt-5.5" });
    expect(result).toMatchObject({ status: "ok", provider: "openai", model: "gpt-5.5", url: api.baseUrl });
    expect(result.detail).toBe(`gpt-5.5 at ${api.baseUrl}: key accepted, model available`);
    expect(api.requests.map((r) => `${r.method} ${r.path}`)).toEqual(["GET /v1/models"]);
    expect(api.requests[0]!.headers.authorization).toBe(`Bearer ${KEY}`);
  });

  test("a model the list leaves out is asked for by id (an alias)", async () => {
    const api = await fake({ flavor: "openai", apiKey: KEY, models: ["grok-4-0709"], aliases: ["grok-4"] });
    const result = await probeProvider({ provider: "xai", baseUrl: api.baseUrl, apiKey: KEY, model: "grok-4" });
    expect(result.status).toBe("ok");
    expect(api.requests.map((r) => r.path)).toEqual(["/v1/models", "/v1/models/grok-4"]);
  });

  test("a model the provider does not serve is a wrong model name", async () => {
    const api = await fake({ flavor: "openai", apiKey: KEY, models: ["gpt-5.5"] });
    const result = await probeProvider({ provider: "openai", baseUrl: api.baseUrl, apiKey: KEY, model: "gpt-9" });
    expect(result).toMatchObject({ status: "fail", httpStatus: 404 });
    expect(result.detail).toBe(`gpt-9 at ${api.baseUrl}: no model named gpt-9 (HTTP 404)`);
    expect(result.fix).toBe(
      "set default_model under [fermix_core.providers.openai] to a model OpenAI serves, or run fermix setup",
    );
  });

  test("a rejected key fails, names the env var and fermix setup, and never echoes the key", async () => {
    const api = await fake({ flavor: "openai", apiKey: KEY, models: ["mistral-large-latest"] });
    const result = await probeProvider({ provider: "mistral", baseUrl: api.baseUrl, apiKey: WRONG });
    expect(result).toMatchObject({ status: "fail", httpStatus: 401, model: "mistral-large-latest" });
    expect(result.detail).toEndWith("the key was rejected (HTTP 401)");
    expect(result.fix).toBe(
      "put a valid key in MISTRAL_API_KEY or api_key under [fermix_core.providers.mistral], or run fermix setup (keys: https://console.mistral.ai/api-keys)",
    );
    expectNoSecret(result, WRONG, KEY);
  });

  test("a route from resolveRoutes is probed at the env's base URL with the env's key", async () => {
    const api = await fake({ flavor: "openai", apiKey: KEY, models: ["gpt-5.5"] });
    const env = { OPENAI_API_KEY: KEY, OPENAI_BASE_URL: api.baseUrl };
    const [route] = resolveRoutes({}, env, { env, secretsDir: "/nonexistent" });
    expect(await probeProvider(route!)).toMatchObject({ status: "ok", provider: "openai", url: api.baseUrl });
  });

  test("nothing listening is unreachable, naming the URL and not the key", async () => {
    const base = `${await closedPort()}/v1`;
    const result = await probeProvider({ provider: "openai", baseUrl: base, apiKey: KEY });
    expect(result.status).toBe("fail");
    expect(result.detail).toBe(`gpt-5.5 at ${base}: unreachable (connection refused)`);
    expect(result.fix).toBe(
      "check the network, or the URL in OPENAI_BASE_URL / base_url under [fermix_core.providers.openai] (default https://api.openai.com/v1)",
    );
    expectNoSecret(result, KEY);
  });

  test("a server that never answers times out", async () => {
    const api = await fake({ flavor: "openai", hang: true });
    const result = await probeProvider({ provider: "openai", baseUrl: api.baseUrl, apiKey: KEY }, { timeoutMs: 150 });
    expect(result.status).toBe("fail");
    expect(result.detail).toEndWith("unreachable (no answer within 0.15 s)");
  });

  test("credentials in a base URL are not shown", async () => {
    const api = await fake({ flavor: "openai", apiKey: KEY, models: ["gpt-5.5"] });
    const withUser = api.baseUrl.replace("http://", "http://user:hunter2secret@");
    const result = await probeProvider({ provider: "openai", baseUrl: withUser, apiKey: KEY }, { fetch });
    expect(JSON.stringify(result)).not.toContain("hunter2secret");
  });

  test("no key at all fails before any request", async () => {
    const result = await probeProvider({ provider: "xai" });
    expect(result).toMatchObject({ status: "fail", detail: "grok-4 at https://api.x.ai/v1: no API key" });
    expect(result.fix).toStartWith("set a key in XAI_API_KEY or api_key under [fermix_core.providers.xai]");
  });

  test("an unexpected 5xx or 429 is a warning, not a verdict on the key", async () => {
    const answer = (status: number) => (async () => new Response("{}", { status })) as unknown as typeof fetch;
    const r500 = await probeProvider({ provider: "openai", apiKey: KEY }, { fetch: answer(500) });
    expect(r500).toMatchObject({ status: "warn", httpStatus: 500 });
    const r429 = await probeProvider({ provider: "openai", apiKey: KEY }, { fetch: answer(429) });
    expect(r429).toMatchObject({ status: "warn", httpStatus: 429 });
  });
});

describe("Anthropic", () => {
  test("x-api-key and anthropic-version; a listed model is ok", async () => {
    const api = await fake({ flavor: "anthropic", apiKey: KEY, models: ["claude-sonnet-4-6"] });
    const result = await probeProvider({ provider: "anthropic", baseUrl: api.baseUrl, apiKey: KEY });
    expect(result.status).toBe("ok");
    expect(api.requests[0]).toMatchObject({ method: "GET", path: "/v1/models" });
    expect(api.requests[0]!.headers["x-api-key"]).toBe(KEY);
    expect(api.requests[0]!.headers["anthropic-version"]).toBe("2023-06-01");
    expect(api.requests[0]!.headers.authorization).toBeUndefined();
  });

  test("a rejected key and an unknown model", async () => {
    const api = await fake({ flavor: "anthropic", apiKey: KEY, models: ["claude-sonnet-4-6"] });
    const rejected = await probeProvider({ provider: "anthropic", baseUrl: api.baseUrl, apiKey: WRONG });
    expect(rejected).toMatchObject({ status: "fail", httpStatus: 401 });
    expect(rejected.fix).toContain("ANTHROPIC_API_KEY");
    const unknown = await probeProvider({
      provider: "anthropic",
      baseUrl: api.baseUrl,
      apiKey: KEY,
      model: "claude-nonesuch-9",
    });
    expect(unknown).toMatchObject({ status: "fail", httpStatus: 404 });
    expect(api.requests.at(-1)!.path).toBe("/v1/models/claude-nonesuch-9");
  });
});

describe("OpenRouter", () => {
  test("the key is checked at /key (its model list is public) and the model at its endpoints page", async () => {
    const api = await fake({ flavor: "openrouter", apiKey: KEY, models: ["anthropic/claude-sonnet-4.6"] });
    // No headers given: the descriptor's attribution headers go along, as on a turn.
    const ok = await probeProvider({ provider: "openrouter", baseUrl: api.baseUrl, apiKey: KEY });
    expect(ok.status).toBe("ok");
    expect(api.requests.map((r) => r.path)).toEqual([
      "/api/v1/key",
      "/api/v1/models/anthropic/claude-sonnet-4.6/endpoints",
    ]);
    expect(api.requests[0]!.headers["x-title"]).toBe("Fermix");

    const rejected = await probeProvider({ provider: "openrouter", baseUrl: api.baseUrl, apiKey: WRONG });
    expect(rejected).toMatchObject({ status: "fail", httpStatus: 401 });
    expect(rejected.fix).toContain("OPENROUTER_API_KEY");

    const wrongModel = await probeProvider({
      provider: "openrouter",
      baseUrl: api.baseUrl,
      apiKey: KEY,
      model: "anthropic/claude-sonnet-4-6",
    });
    expect(wrongModel).toMatchObject({ status: "fail", httpStatus: 404 });
  });
});

describe("Ollama", () => {
  const ollama = (models: NonNullable<ModelApiOptions["ollama"]>) => fake({ flavor: "ollama", ollama: models });

  test("num_ctx 2048 under a 128000-token window fails loud with the two ways to raise it", async () => {
    const api = await ollama([{ name: "llama3.2:latest", contextLength: 131_072, numCtx: 2048 }]);
    const result = await probeProvider({ provider: "ollama", baseUrl: api.baseUrl, model: "llama3.2" });
    expect(result).toMatchObject({
      status: "fail",
      context: { served: 2048, trained: 131_072, window: 128_000 },
    });
    expect(result.detail).toBe(
      `llama3.2 at ${api.baseUrl}: its num_ctx is 2048 tokens, less than the 128000-token window fermix plans for; longer prompts are cut silently`,
    );
    expect(result.fix).toBe(
      "raise it: OLLAMA_CONTEXT_LENGTH=128000 where ollama serve runs, or PARAMETER num_ctx 128000 in a Modelfile (ollama create)",
    );
    expect(api.requests.map((r) => `${r.method} ${r.path}`)).toEqual(["GET /api/tags", "POST /api/show"]);
    expect(api.requests[1]!.body).toEqual({ model: "llama3.2" });
    expect(api.requests[0]!.headers.authorization).toBeUndefined();
  });

  test("a model that is not pulled says ollama pull", async () => {
    const api = await ollama([{ name: "qwen3:8b", contextLength: 131_072 }]);
    const result = await probeProvider({ provider: "ollama", baseUrl: api.baseUrl, model: "llama3.2" });
    expect(result).toMatchObject({ status: "fail", fix: "ollama pull llama3.2" });
    expect(result.detail).toEndWith("the model is not pulled");
  });

  test("/api/show answering 404 is also not pulled", async () => {
    const api = await ollama([]);
    // A tags list that names the model while /api/show does not know it (a model deleted in between).
    const fetchTagsLying = (async (input: string | URL, init?: RequestInit) => {
      if (String(input).endsWith("/api/tags")) return Response.json({ models: [{ name: "llama3.2:latest" }] });
      return fetch(input, init);
    }) as unknown as typeof fetch;
    const result = await probeProvider(
      { provider: "ollama", baseUrl: api.baseUrl, model: "llama3.2" },
      { fetch: fetchTagsLying },
    );
    expect(result).toMatchObject({ status: "fail", fix: "ollama pull llama3.2", httpStatus: 404 });
  });

  test("served context from a loaded model (/api/ps) when no num_ctx is set", async () => {
    const api = await ollama([{ name: "llama3.2:latest", contextLength: 131_072, loadedContext: 131_072 }]);
    const result = await probeProvider({ provider: "ollama", baseUrl: api.baseUrl, model: "llama3.2" });
    expect(result).toMatchObject({ status: "ok", context: { served: 131_072, window: 128_000 } });
    expect(result.detail).toEndWith("pulled, serves 131072 tokens (window 128000)");
  });

  test("a loaded model with a small context fails too", async () => {
    const api = await ollama([{ name: "llama3.2:latest", contextLength: 131_072, loadedContext: 4096 }]);
    const result = await probeProvider({ provider: "ollama", baseUrl: api.baseUrl, model: "llama3.2" });
    expect(result.status).toBe("fail");
    expect(result.detail).toContain("the server loaded it with 4096 tokens");
  });

  test("an unknown served context is a warning with the same fix", async () => {
    const api = await ollama([{ name: "llama3.2:latest", contextLength: 131_072 }]);
    const result = await probeProvider({ provider: "ollama", baseUrl: `${api.origin}/`, model: "llama3.2" });
    expect(result.status).toBe("warn");
    expect(result.fix).toContain("OLLAMA_CONTEXT_LENGTH=128000");
  });

  test("a model trained for less than the window cannot be fixed by num_ctx", async () => {
    const api = await ollama([{ name: "gemma:2b", contextLength: 8192, numCtx: 8192 }]);
    const result = await probeProvider({ provider: "ollama", baseUrl: api.baseUrl, model: "gemma:2b" });
    expect(result).toMatchObject({
      status: "fail",
      fix: "pick an Ollama model with a context of at least 128000 tokens",
    });
  });

  test("num_ctx at or above the window is ok", async () => {
    const api = await ollama([{ name: "llama3.2:latest", contextLength: 131_072, numCtx: 131_072 }]);
    const result = await probeProvider({ provider: "ollama", baseUrl: api.baseUrl, model: "llama3.2:latest" });
    expect(result.status).toBe("ok");
  });

  test("no server: start Ollama", async () => {
    const base = `${await closedPort()}/v1`;
    const result = await probeProvider({ provider: "ollama", baseUrl: base, model: "llama3.2" });
    expect(result).toMatchObject({ status: "fail" });
    expect(result.fix).toBe(
      `start Ollama (ollama serve) at ${base}, or point OLLAMA_BASE_URL / base_url under [fermix_core.providers.ollama] at a running server`,
    );
  });
});
