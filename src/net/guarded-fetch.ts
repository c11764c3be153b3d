import { isFermixError } from "../error.ts";
import { blockedAddressReason } from "./address-policy.ts";
import { resolveWithDns } from "./dns-resolver.ts";
import { NetBlocked, NetFailed } from "./net-error.ts";
import { parseTarget, sameOrigin, type Target } from "./parse-target.ts";
import { readCapped } from "./read-capped.ts";
import type { GuardedFetch, GuardedRequest, GuardedResponse, Resolver } from "./types.ts";

export type Limits = { maxBytes: number; maxRedirects: number; timeoutMs: number };

/** The fetch the door finally calls, with the vetted address already in the URL. Bun's global fetch fits. */
export type PinnedFetch = (url: string, init: BunFetchRequestInit) => Promise<Response>;

export type GuardedFetchDeps = { resolve?: Resolver; fetch?: PinnedFetch; defaults?: Partial<Limits> };

export const DEFAULT_LIMITS: Limits = { maxBytes: 5 * 1024 * 1024, maxRedirects: 5, timeoutMs: 20_000 };

const REDIRECTS = new Set([301, 302, 303, 307, 308]);
// Credentials meant for one origin must not be handed to the next one a redirect names.
const CREDENTIAL_HEADERS = ["authorization", "cookie", "proxy-authorization"];
// The fetch standard's request-body-header names, dropped when a redirect turns the request into a GET.
const BODY_HEADERS = ["content-type", "content-length", "content-encoding", "content-language", "content-location"];
// Failures before any byte of the request was sent, so the next vetted address may be tried even for a POST.
const CONNECT_FAILURES = new Set(["ECONNREFUSED", "ENETUNREACH", "EHOSTUNREACH", "EADDRNOTAVAIL", "ConnectionRefused"]);

type Attempt = { method: string; headers: Record<string, string>; body?: string | Uint8Array };

/**
 * The one outbound door. Resolves each host once, refuses unless every answer is public, connects to the vetted
 * address itself (Bun's fetch would otherwise resolve again and ignore a custom lookup), and re-checks every
 * redirect hop.
 */
export function createGuardedFetch(deps: GuardedFetchDeps = {}): GuardedFetch {
  const resolve = deps.resolve ?? resolveWithDns;
  const send: PinnedFetch = deps.fetch ?? fetch;
  const defaults: Limits = { ...DEFAULT_LIMITS, ...deps.defaults };

  return async (input: string, request: GuardedRequest = {}): Promise<GuardedResponse> => {
    const limits: Limits = {
      maxBytes: request.maxBytes ?? defaults.maxBytes,
      maxRedirects: request.maxRedirects ?? defaults.maxRedirects,
      timeoutMs: request.timeoutMs ?? defaults.timeoutMs,
    };
    const timeout = AbortSignal.timeout(limits.timeoutMs);
    const signal = request.signal ? AbortSignal.any([request.signal, timeout]) : timeout;
    try {
      return await follow(input, request, limits, signal);
    } catch (err) {
      // The caller's own cancellation goes back to it untouched; only our timer becomes a net error.
      if (request.signal?.aborted) throw request.signal.reason;
      if (timeout.aborted && !isFermixError(err)) {
        throw NetFailed(`timed out after ${limits.timeoutMs} ms fetching ${input}`, { url: input, kind: "timeout" });
      }
      throw err;
    }
  };

  async function follow(input: string, request: GuardedRequest, limits: Limits, signal: AbortSignal) {
    let target = parseTarget(input);
    const attempt: Attempt = { method: (request.method ?? "GET").toUpperCase(), headers: {}, body: request.body };
    for (const [name, value] of Object.entries(request.headers ?? {})) attempt.headers[name.toLowerCase()] = value;

    let from: string | undefined;
    for (let hop = 0; ; hop++) {
      let response: Response;
      try {
        response = await sendPinned(target, attempt, signal);
      } catch (err) {
        throw viaRedirect(err, from);
      }
      const location = response.headers.get("location");
      if (!REDIRECTS.has(response.status) || location === null || limits.maxRedirects === 0) {
        const { body, truncated } = await readCapped(response, limits.maxBytes);
        return { status: response.status, headers: response.headers, url: target.url.href, body, truncated };
      }
      await response.body?.cancel();
      if (hop >= limits.maxRedirects) {
        const why = `stopped after ${hop} redirects (the limit is ${limits.maxRedirects})`;
        throw NetBlocked(`refused ${target.url.href}: ${why}`, {
          url: target.url.href,
          host: target.host,
          rule: "redirect_limit",
        });
      }
      let next: Target;
      try {
        next = parseTarget(location, target.url);
      } catch (err) {
        throw viaRedirect(err, target.url.href);
      }
      if (!sameOrigin(target, next)) {
        for (const name of CREDENTIAL_HEADERS) delete attempt.headers[name];
      }
      const post = attempt.method === "POST" && (response.status === 301 || response.status === 302);
      if ((response.status === 303 && attempt.method !== "HEAD") || post) {
        attempt.method = "GET";
        attempt.body = undefined;
        for (const name of BODY_HEADERS) delete attempt.headers[name];
      }
      from = target.url.href;
      target = next;
    }
  }

  async function sendPinned(target: Target, attempt: Attempt, signal: AbortSignal): Promise<Response> {
    const addresses = target.literal ? [target.host] : await vetAnswers(target, signal);
    let lastError: unknown;
    for (const address of addresses) {
      try {
        return await send(pinnedUrl(target, address), {
          method: attempt.method,
          headers: { ...attempt.headers, host: target.hostHeader },
          body: attempt.body,
          redirect: "manual",
          signal,
          // The certificate is checked against the name, not the address we dialled (SNI carries no root dot).
          ...(target.secure && !target.literal ? { tls: { serverName: target.host.replace(/\.+$/, "") } } : {}),
        });
      } catch (err) {
        if (signal.aborted) throw err;
        if (!CONNECT_FAILURES.has((err as { code?: string } | undefined)?.code ?? "")) {
          throw NetFailed(`could not fetch ${target.url.href}: ${describe(err)}`, {
            url: target.url.href,
            host: target.host,
            kind: "transport",
          });
        }
        lastError = err;
      }
    }
    throw NetFailed(`could not connect to ${target.host} (${addresses.join(", ")}): ${describe(lastError)}`, {
      url: target.url.href,
      host: target.host,
      kind: "connect",
    });
  }

  async function vetAnswers(target: Target, signal: AbortSignal): Promise<string[]> {
    let answers: string[];
    try {
      answers = await abortable(resolve(target.host), signal);
    } catch (err) {
      if (signal.aborted) throw err;
      throw NetFailed(`could not resolve ${target.host}: ${describe(err)}`, {
        url: target.url.href,
        host: target.host,
        kind: "dns",
      });
    }
    const unique = [...new Set(answers)];
    if (unique.length === 0) {
      throw NetFailed(`could not resolve ${target.host}: no addresses`, {
        url: target.url.href,
        host: target.host,
        kind: "dns",
      });
    }
    // One private answer is enough to refuse: a resolver that mixes them can steer the connect to either.
    for (const address of unique) {
      const why = blockedAddressReason(address);
      if (why !== undefined) {
        throw NetBlocked(`refused ${target.url.href}: ${target.host} resolves to ${address}, which is ${why}`, {
          url: target.url.href,
          host: target.host,
          address,
          rule: "dns_answer",
        });
      }
    }
    return unique;
  }
}

// A refusal at a later hop says where the redirect came from, so the reader sees why a public URL was refused.
function viaRedirect(err: unknown, from: string | undefined): unknown {
  if (from === undefined || !NetBlocked.is(err)) return err;
  return NetBlocked(`refused redirect from ${from}: ${err.message}`, { ...err.data, from });
}

function pinnedUrl(target: Target, address: string): string {
  const host = address.includes(":") ? `[${address}]` : address;
  return `${target.url.protocol}//${host}:${target.port}${target.url.pathname}${target.url.search}`;
}

function abortable<T>(promise: Promise<T>, signal: AbortSignal): Promise<T> {
  if (signal.aborted) return Promise.reject(signal.reason);
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(signal.reason);
    signal.addEventListener("abort", onAbort, { once: true });
    promise.then(resolve, reject).finally(() => signal.removeEventListener("abort", onAbort));
  });
}

function describe(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}
