import { findProvider, type ProviderDescriptor } from "./descriptors.ts";
import type { Route } from "./routes.ts";

/**
 * One cheap request (two at most) per provider that tells whether a turn could run on it: the server
 * answers, it accepts the key, and it serves the configured model. Used by `fermix doctor` and the setup
 * wizard. Nothing here is billed — only model-listing endpoints are called — and the key never appears in
 * a result: details name the provider, the URL and the env var, and vendor error bodies (OpenAI's echoes a
 * masked key) are never copied.
 */
export type ProbeStatus = "ok" | "warn" | "fail";

export type ProbeTarget = {
  provider: string;
  /** As resolveRoutes gives it (Ollama with its `/v1`); the provider's default when absent. */
  baseUrl?: string;
  apiKey?: string;
  /** The provider's default model when absent. */
  model?: string;
  /** Extra static headers; the provider's own (OpenRouter attribution) when absent. */
  headers?: Record<string, string>;
};

export type ProbeResult = {
  provider: string;
  model: string;
  /** The base URL probed, without any credentials in it. */
  url: string;
  status: ProbeStatus;
  detail: string;
  /** One line saying what to do, on warn and fail. */
  fix?: string;
  /** The HTTP status that decided a warn or fail, when a server answered. */
  httpStatus?: number;
  /** Ollama only: the context it serves the model with, what the model was trained for, fermix's window. */
  context?: { served?: number; trained?: number; window: number };
};

export type ProbeOptions = { fetch?: typeof fetch; timeoutMs?: number };

export const PROBE_TIMEOUT_MS = 5_000;

/** `probeProvider(route)` in the doctor; `probeProvider({ provider, apiKey, model })` in the setup wizard. */
export async function probeProvider(input: Route | ProbeTarget, opts: ProbeOptions = {}): Promise<ProbeResult> {
  const target = toTarget(input);
  const d = findProvider(target.provider);
  if (!d) {
    return {
      provider: target.provider,
      model: target.model ?? "",
      url: "",
      status: "fail",
      detail: `unknown provider "${target.provider}"`,
    };
  }
  const ctx = probeContext(d, target, opts);
  if (!d.keyless && !target.apiKey) return ctx.result("fail", "no API key", keyFix(d, "set"));
  if (d.id === "ollama") return probeOllama(ctx);
  if (d.wire === "anthropic") return probeListed(ctx, "/v1/models?limit=1000", "/v1/models/");
  if (d.id === "openrouter") return probeOpenRouter(ctx);
  return probeListed(ctx, "/models", "/models/");
}

function toTarget(input: Route | ProbeTarget): ProbeTarget {
  if (!("descriptor" in input)) return input;
  const { target, model, descriptor } = input;
  return { provider: descriptor.id, baseUrl: target.baseUrl, apiKey: target.apiKey, model, headers: target.headers };
}

type Answer = { ok: true; status: number; body: unknown } | { ok: false; reason: string };
type Ctx = ReturnType<typeof probeContext>;

function probeContext(d: ProviderDescriptor, target: ProbeTarget, opts: ProbeOptions) {
  const fetchFn = opts.fetch ?? fetch;
  const timeoutMs = opts.timeoutMs ?? PROBE_TIMEOUT_MS;
  const base = (target.baseUrl ?? d.defaultBaseUrl).replace(/\/+$/, "");
  const model = target.model ?? d.defaultModel;
  const url = withoutCredentials(base);
  const headers: Record<string, string> = { accept: "application/json", ...(target.headers ?? d.headers) };
  if (target.apiKey && d.wire === "anthropic") {
    headers["x-api-key"] = target.apiKey;
    headers["anthropic-version"] = "2023-06-01";
  } else if (target.apiKey) headers.authorization = `Bearer ${target.apiKey}`;

  const result = (status: ProbeStatus, detail: string, fix?: string, extra: Partial<ProbeResult> = {}) => ({
    provider: d.id,
    model,
    url,
    status,
    detail: `${model} at ${url}: ${detail}`,
    ...(fix ? { fix } : {}),
    ...extra,
  });

  return {
    d,
    base,
    model,
    url,
    result,
    async call(absolute: string, init: { method?: string; body?: unknown } = {}): Promise<Answer> {
      try {
        const response = await fetchFn(absolute, {
          method: init.method ?? "GET",
          headers: init.body === undefined ? headers : { ...headers, "content-type": "application/json" },
          body: init.body === undefined ? undefined : JSON.stringify(init.body),
          redirect: "manual",
          signal: AbortSignal.timeout(timeoutMs),
        });
        const text = await response.text();
        let body: unknown;
        try {
          body = JSON.parse(text);
        } catch {}
        return { ok: true, status: response.status, body };
      } catch (err) {
        return { ok: false, reason: networkReason(err, timeoutMs) };
      }
    },
    unreachable(reason: string) {
      return result("fail", `unreachable (${reason})`, unreachableFix(d, url));
    },
    /** What an HTTP status other than 200 means; `onModel` when the request named the model. */
    fromHttp(status: number, path: string, onModel: boolean) {
      const extra = { httpStatus: status };
      if (status === 401 || status === 403) {
        return result("fail", `the key was rejected (HTTP ${status})`, keyFix(d, "fix"), extra);
      }
      if (status === 404 && onModel) {
        return result("fail", `no model named ${model} (HTTP 404)`, modelFix(d), extra);
      }
      if (status === 404) {
        return result("warn", `${path} was not found (HTTP 404); is the base URL right?`, baseUrlFix(d), extra);
      }
      if (status === 429) return result("warn", "rate-limited right now (HTTP 429)", "try again in a minute", extra);
      if (status >= 500) {
        return result(
          "warn",
          `the server failed (HTTP ${status})`,
          "try again later; it is on the provider's side",
          extra,
        );
      }
      return result("warn", `unexpected answer HTTP ${status} to ${path}`, baseUrlFix(d), extra);
    },
  };
}

/**
 * OpenAI-compatible APIs and Anthropic: list the models (proves the URL and the key), and when the
 * configured id is not listed by name (an alias, a proxy's short list) ask for it by id, which is
 * what tells a wrong model name apart.
 */
async function probeListed(ctx: Ctx, listPath: string, onePath: string): Promise<ProbeResult> {
  const list = await ctx.call(`${ctx.base}${listPath}`);
  if (!list.ok) return ctx.unreachable(list.reason);
  if (list.status !== 200) return ctx.fromHttp(list.status, listPath.replace(/\?.*/, ""), false);
  if (listedIds(list.body).has(ctx.model)) return ctx.result("ok", "key accepted, model available");
  const one = await ctx.call(`${ctx.base}${onePath}${encodeURIComponent(ctx.model)}`);
  if (!one.ok) return ctx.unreachable(one.reason);
  if (one.status === 200) return ctx.result("ok", "key accepted, model available");
  return ctx.fromHttp(one.status, `${onePath}${ctx.model}`, true);
}

/** OpenRouter's model list is public, so it cannot reject a key: GET /key does; the model has its own page. */
async function probeOpenRouter(ctx: Ctx): Promise<ProbeResult> {
  const key = await ctx.call(`${ctx.base}/key`);
  if (!key.ok) return ctx.unreachable(key.reason);
  if (key.status !== 200) return ctx.fromHttp(key.status, "/key", false);
  const path = `/models/${ctx.model.split("/").map(encodeURIComponent).join("/")}/endpoints`;
  const model = await ctx.call(`${ctx.base}${path}`);
  if (!model.ok) return ctx.unreachable(model.reason);
  if (model.status === 200) return ctx.result("ok", "key accepted, model available");
  return ctx.fromHttp(model.status, path, true);
}

/**
 * Ollama: the native API next to the OpenAI-compatible one. /api/tags proves the server and lists what is
 * pulled; /api/show gives the model's trained context and any num_ctx its Modelfile sets; /api/ps, for a
 * loaded model, the context the server actually allocated. Ollama truncates a longer prompt silently, so a
 * served context below the window fermix compacts against is a failure, not a note.
 */
async function probeOllama(ctx: Ctx): Promise<ProbeResult> {
  const { d, model } = ctx;
  const root = ctx.base.replace(/\/v1$/, "");
  const notPulled = (status?: number) =>
    ctx.result("fail", "the model is not pulled", `ollama pull ${model}`, status ? { httpStatus: status } : {});

  const tags = await ctx.call(`${root}/api/tags`);
  if (!tags.ok) return ctx.unreachable(tags.reason);
  if (tags.status !== 200) return ctx.fromHttp(tags.status, "/api/tags", false);
  const pulled = ollamaNames(tags.body, "models");
  if (!pulled.some((name) => sameOllamaModel(name, model))) return notPulled();

  const show = await ctx.call(`${root}/api/show`, { method: "POST", body: { model } });
  if (!show.ok) return ctx.unreachable(show.reason);
  if (show.status === 404) return notPulled(404);
  if (show.status !== 200) return ctx.fromHttp(show.status, "/api/show", true);
  const window = d.contextWindow;
  const trained = trainedContext(show.body);
  let served = numCtx(show.body);
  let source = "num_ctx";
  if (served === undefined) {
    const ps = await ctx.call(`${root}/api/ps`);
    if (ps.ok && ps.status === 200) {
      served = loadedContext(ps.body, model);
      source = "loaded";
    }
  }
  const context = { served, trained, window };
  const raise = `raise it: OLLAMA_CONTEXT_LENGTH=${window} where ollama serve runs, or PARAMETER num_ctx ${window} in a Modelfile (ollama create)`;
  if (trained !== undefined && trained < window) {
    return ctx.result(
      "fail",
      `the model holds ${trained} tokens, less than the ${window}-token window fermix plans for; longer prompts are cut silently`,
      `pick an Ollama model with a context of at least ${window} tokens`,
      { context },
    );
  }
  if (served !== undefined && served < window) {
    const how = source === "num_ctx" ? "its num_ctx is" : "the server loaded it with";
    return ctx.result(
      "fail",
      `${how} ${served} tokens, less than the ${window}-token window fermix plans for; longer prompts are cut silently`,
      raise,
      { context },
    );
  }
  if (served === undefined) {
    return ctx.result(
      "warn",
      "pulled, but the context Ollama serves is unknown (no num_ctx in its Modelfile, not loaded now); by default Ollama serves 4096 tokens below 24 GiB of VRAM",
      raise,
      { context },
    );
  }
  return ctx.result("ok", `pulled, serves ${served} tokens (window ${window})`, undefined, { context });
}

function listedIds(body: unknown): Set<string> {
  const ids = new Set<string>();
  const data = (body as { data?: unknown } | undefined)?.data;
  if (!Array.isArray(data)) return ids;
  for (const entry of data as Array<{ id?: unknown; aliases?: unknown }>) {
    if (typeof entry?.id === "string") ids.add(entry.id);
    // Mistral lists a model's -latest aliases on the entry itself.
    if (Array.isArray(entry?.aliases)) for (const a of entry.aliases) if (typeof a === "string") ids.add(a);
  }
  return ids;
}

function ollamaNames(body: unknown, key: string): string[] {
  const list = (body as Record<string, unknown> | undefined)?.[key];
  if (!Array.isArray(list)) return [];
  return list.flatMap((m: { name?: unknown; model?: unknown }) =>
    [m?.name, m?.model].filter((n): n is string => typeof n === "string"),
  );
}

/** `llama3.2` is `llama3.2:latest` to Ollama. */
function sameOllamaModel(listed: string, wanted: string): boolean {
  return listed === wanted || (!wanted.includes(":") && listed === `${wanted}:latest`);
}

function trainedContext(body: unknown): number | undefined {
  const info = (body as { model_info?: Record<string, unknown> } | undefined)?.model_info;
  if (!info) return undefined;
  for (const [key, value] of Object.entries(info)) {
    if (key.endsWith(".context_length") && typeof value === "number") return value;
  }
  return undefined;
}

/** `parameters` is the Modelfile's PARAMETER lines as text: `num_ctx    2048\nstop "<|eot|>"`. */
function numCtx(body: unknown): number | undefined {
  const parameters = (body as { parameters?: unknown } | undefined)?.parameters;
  if (typeof parameters !== "string") return undefined;
  const match = /^\s*num_ctx\s+(\d+)\s*$/m.exec(parameters);
  return match ? Number(match[1]) : undefined;
}

function loadedContext(body: unknown, model: string): number | undefined {
  const list = (body as { models?: unknown } | undefined)?.models;
  if (!Array.isArray(list)) return undefined;
  const loaded = list.find(
    (m: { name?: unknown; model?: unknown }) =>
      (typeof m?.name === "string" && sameOllamaModel(m.name, model)) ||
      (typeof m?.model === "string" && sameOllamaModel(m.model, model)),
  ) as { context_length?: unknown } | undefined;
  return typeof loaded?.context_length === "number" ? loaded.context_length : undefined;
}

function networkReason(err: unknown, timeoutMs: number): string {
  const e = err as { name?: string; code?: string } | undefined;
  if (e?.name === "TimeoutError" || e?.name === "AbortError") return `no answer within ${timeoutMs / 1000} s`;
  if (e?.code === "ConnectionRefused" || e?.code === "ECONNREFUSED") return "connection refused";
  if (e?.code === "ENOTFOUND" || e?.code === "EAI_NONAME") return "host not found";
  return e?.code ? `network error ${e.code}` : "network error";
}

function withoutCredentials(url: string): string {
  try {
    const parsed = new URL(url);
    if (!parsed.username && !parsed.password) return url;
    parsed.username = "";
    parsed.password = "";
    return parsed.toString().replace(/\/+$/, "");
  } catch {
    return url;
  }
}

function keyFix(d: ProviderDescriptor, verb: "set" | "fix"): string {
  const where = `${d.env.apiKey ?? `${d.id.toUpperCase()}_API_KEY`} or api_key under [fermix_core.providers.${d.id}]`;
  const help = d.keyHelp ? ` (keys: ${d.keyHelp})` : "";
  return `${verb === "set" ? "set a key in" : "put a valid key in"} ${where}, or run fermix setup${help}`;
}

function modelFix(d: ProviderDescriptor): string {
  return `set default_model under [fermix_core.providers.${d.id}] to a model ${d.label} serves, or run fermix setup`;
}

function baseUrlFix(d: ProviderDescriptor): string {
  return `check the URL in ${baseUrlSetting(d)} (default ${d.defaultBaseUrl})`;
}

function baseUrlSetting(d: ProviderDescriptor): string {
  return `${d.env.baseUrl ? `${d.env.baseUrl} / ` : ""}base_url under [fermix_core.providers.${d.id}]`;
}

function unreachableFix(d: ProviderDescriptor, url: string): string {
  if (d.id === "ollama") {
    return `start Ollama (ollama serve) at ${url}, or point ${baseUrlSetting(d)} at a running server`;
  }
  return `check the network, or the URL in ${baseUrlSetting(d)} (default ${d.defaultBaseUrl})`;
}
