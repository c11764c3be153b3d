import {
  keyFix,
  type ProbeContext,
  type ProbeOptions,
  type ProbeResult,
  type ProbeTarget,
  probeContext,
} from "./_probe-context.ts";
import { findProvider } from "./descriptors.ts";
import { probeOllama } from "./probe-ollama.ts";
import { probeSignedIn } from "./probe-sign-in.ts";
import type { Route } from "./routes.ts";

/**
 * One cheap request (two at most) per provider that tells whether a turn could run on it: the server
 * answers, it accepts the key, and it serves the configured model. Used by `fermix doctor` and the setup
 * wizard. Nothing here is billed — only model-listing endpoints are called — and the key never appears in
 * a result: details name the provider, the URL and the env var, and vendor error bodies (OpenAI's echoes a
 * masked key) are never copied.
 */
export {
  PROBE_TIMEOUT_MS,
  type ProbeOptions,
  type ProbeResult,
  type ProbeStatus,
  type ProbeTarget,
} from "./_probe-context.ts";

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
  if (target.oauth) return probeSignedIn(d, { ...target, oauth: target.oauth }, opts);
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
  return {
    provider: descriptor.id,
    baseUrl: target.baseUrl,
    apiKey: target.apiKey,
    model,
    headers: target.headers,
    ...(target.oauth ? { oauth: target.oauth } : {}),
  };
}

/**
 * OpenAI-compatible APIs and Anthropic: list the models (proves the URL and the key), and when the
 * configured id is not listed by name (an alias, a proxy's short list) ask for it by id, which is
 * what tells a wrong model name apart.
 */
async function probeListed(ctx: ProbeContext, listPath: string, onePath: string): Promise<ProbeResult> {
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
async function probeOpenRouter(ctx: ProbeContext): Promise<ProbeResult> {
  const key = await ctx.call(`${ctx.base}/key`);
  if (!key.ok) return ctx.unreachable(key.reason);
  if (key.status !== 200) return ctx.fromHttp(key.status, "/key", false);
  const path = `/models/${ctx.model.split("/").map(encodeURIComponent).join("/")}/endpoints`;
  const model = await ctx.call(`${ctx.base}${path}`);
  if (!model.ok) return ctx.unreachable(model.reason);
  if (model.status === 200) return ctx.result("ok", "key accepted, model available");
  return ctx.fromHttp(model.status, path, true);
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
