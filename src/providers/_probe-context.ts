import { providerKeySlot } from "../config/secret-slots.ts";
import { HttpRequestFailed, requestJson } from "../net/json-client.ts";
import type { ProviderDescriptor } from "./descriptors.ts";
import type { OAuthTarget } from "./types.ts";

/** What every provider probe shares: the request it makes, and the sentences it answers with. */
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
  /** A subscription sign-in instead of a key (the route's own). */
  oauth?: OAuthTarget;
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
/**
 * The most of one probe answer read: a model listing (OpenRouter's is a few MB) is the largest. Past it the body
 * is not read on and the probe fails with the JSON client's "larger than … bytes" as its reason.
 */
export const PROBE_MAX_BYTES = 16 * 1024 * 1024;

export type Answer = { ok: true; status: number; body: unknown } | { ok: false; reason: string };
export type ProbeContext = ReturnType<typeof probeContext>;

export function probeContext(d: ProviderDescriptor, target: ProbeTarget, opts: ProbeOptions) {
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
    // Through the JSON client, never retried: a doctor's verdict is one honest look inside its budget, and a
    // 429 or 5xx asked again at once says nothing new (fromHttp already tells the owner to try later).
    async call(
      absolute: string,
      init: { method?: "GET" | "POST"; body?: Record<string, unknown> } = {},
    ): Promise<Answer> {
      const common = { headers, redirect: "manual" as const, timeoutMs, maxBytes: PROBE_MAX_BYTES };
      try {
        const answer = await requestJson(
          absolute,
          init.method === "POST" ? { ...common, method: "POST", body: init.body } : common,
          { fetch: fetchFn },
        );
        return { ok: true, status: answer.status, body: answer.body };
      } catch (err) {
        if (HttpRequestFailed.is(err) && err.data.kind === "too_large") return { ok: false, reason: err.message };
        return { ok: false, reason: networkReason(HttpRequestFailed.is(err) ? err.cause : err, timeoutMs) };
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

export function keyFix(d: ProviderDescriptor, verb: "set" | "fix"): string {
  const where = `${providerKeySlot(d)} or api_key under [fermix_core.providers.${d.id}]`;
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
