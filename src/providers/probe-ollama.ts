import type { ProbeContext, ProbeResult } from "./_probe-context.ts";

/**
 * Ollama: the native API next to the OpenAI-compatible one. /api/tags proves the server and lists what is
 * pulled; /api/show gives the model's trained context and any num_ctx its Modelfile sets; /api/ps, for a
 * loaded model, the context the server actually allocated. Ollama truncates a longer prompt silently, so a
 * served context below the window fermix compacts against is a failure, not a note.
 */
export async function probeOllama(ctx: ProbeContext): Promise<ProbeResult> {
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
