import type { FailureClass, ProviderFailure, StreamEvent, Wire, WireCall, WireDeps, WireId } from "../types.ts";

/**
 * A wire from its happy-path generator: anything it throws becomes the stream's final `error` event,
 * so callers see every failure as data with its class (a wire never throws).
 */
export function defineWire(id: WireId, run: (call: WireCall, deps: WireDeps) => AsyncGenerator<StreamEvent>): Wire {
  return {
    id,
    async *stream(call, deps) {
      try {
        yield* run(call, deps);
      } catch (err) {
        yield { type: "error", error: toFailure(call.target.provider, err) };
      }
    },
  };
}

/** Thrown inside a wire and turned into its final `error` event at the wire's edge. */
export class WireFailure extends Error {
  constructor(readonly failure: ProviderFailure) {
    super(failure.message);
  }
}

export function fail(provider: string, cls: FailureClass, message: string, extra?: Partial<ProviderFailure>): never {
  throw new WireFailure({ class: cls, provider, message, ...extra });
}

/** Anything thrown while talking to a provider becomes a classified failure. */
export function toFailure(provider: string, err: unknown): ProviderFailure {
  if (err instanceof WireFailure) return err.failure;
  const message = err instanceof Error ? err.message : String(err);
  // No response at all (refused, unreachable, DNS): a scheduled run that wakes with the host retries this one.
  return {
    class: "transient",
    provider,
    message: `connection to ${provider} failed: ${message}`,
    vendorCode: "connection_unavailable",
  };
}

const CONTEXT_HINTS = [
  /context[_ ]length/i,
  /prompt is too long/i,
  /maximum context/i,
  /too many tokens/i,
  /context window/i,
];

/**
 * Classifies an HTTP error answer. The vendor's own message and code come from the wire's
 * body extractor; the class comes from the status, refined by the code where vendors overload 400.
 */
export function classifyHttpError(
  provider: string,
  status: number,
  vendor: { message?: string; code?: string },
  headers: Headers,
  now: number,
): ProviderFailure {
  const detail = vendor.message ? `: ${vendor.message}` : "";
  const base = { provider, status, vendorCode: vendor.code };
  if (status === 401 || status === 403) {
    return { ...base, class: "auth", message: `${provider} refused the credential (HTTP ${status})${detail}` };
  }
  if (status === 429 || vendor.code === "insufficient_quota") {
    return {
      ...base,
      class: "rate_limit",
      message: `${provider} rate limit or quota reached (HTTP ${status})${detail}`,
      retryAt: retryAtFromHeaders(headers, now),
    };
  }
  const text = `${vendor.code ?? ""} ${vendor.message ?? ""}`;
  if ((status === 400 || status === 413) && CONTEXT_HINTS.some((re) => re.test(text))) {
    return {
      ...base,
      class: "context_length",
      message: `the conversation no longer fits ${provider}'s context window${detail}`,
    };
  }
  if (status >= 500 || status === 408 || status === 409) {
    return { ...base, class: "transient", message: `${provider} is unavailable (HTTP ${status})${detail}` };
  }
  return { ...base, class: "invalid_request", message: `${provider} rejected the request (HTTP ${status})${detail}` };
}

/**
 * Reset times arrive in several dialects: `retry-after` (seconds or an HTTP date), OpenAI's
 * `x-ratelimit-reset-*` durations ("6m0s", "1.5s", "20ms"), Anthropic's RFC 3339 instants and
 * OpenRouter's `x-ratelimit-reset` epoch milliseconds.
 */
export function retryAtFromHeaders(headers: Headers, now: number): number | undefined {
  const candidates: number[] = [];
  const retryAfter = headers.get("retry-after");
  if (retryAfter) {
    const secs = Number(retryAfter);
    if (Number.isFinite(secs)) candidates.push(now + secs * 1000);
    else {
      const at = Date.parse(retryAfter);
      if (!Number.isNaN(at)) candidates.push(at);
    }
  }
  for (const name of ["x-ratelimit-reset-requests", "x-ratelimit-reset-tokens"]) {
    const ms = parseGoDuration(headers.get(name));
    if (ms !== undefined) candidates.push(now + ms);
  }
  for (const name of ["anthropic-ratelimit-requests-reset", "anthropic-ratelimit-tokens-reset"]) {
    const value = headers.get(name);
    const at = value ? Date.parse(value) : Number.NaN;
    if (!Number.isNaN(at)) candidates.push(at);
  }
  // OpenRouter sends an epoch in milliseconds ("1735689600000"). Only a value that can be one is trusted,
  // so a host that reuses the name for seconds-to-wait is not read as a date in 1970.
  const reset = Number(headers.get("x-ratelimit-reset") ?? Number.NaN);
  if (Number.isFinite(reset) && reset > 1e12) candidates.push(reset);
  return candidates.length ? Math.max(...candidates) : undefined;
}

function parseGoDuration(value: string | null): number | undefined {
  if (!value) return undefined;
  const re = /(\d+(?:\.\d+)?)(ms|h|m|s)/g;
  let total = 0;
  let matched = false;
  for (const m of value.matchAll(re)) {
    matched = true;
    const n = Number(m[1]);
    total += m[2] === "h" ? n * 3_600_000 : m[2] === "m" ? n * 60_000 : m[2] === "s" ? n * 1000 : n;
  }
  return matched ? total : undefined;
}
