import { defineError } from "../error.ts";

/** A request to an owner-configured endpoint got no usable answer; an HTTP error status is an answer, not this. */
export const HttpRequestFailed = defineError<{
  /** Shown form: no credentials, no query. */
  url: string;
  /** No answer at all; the body broke off after the answer began; the body ran past `maxBytes`. */
  kind: "unreachable" | "cut" | "too_large";
  /** The deadline passed (before the answer, or while its body was read). */
  timedOut: boolean;
}>("http_request_failed");

/** What the client calls; Bun's fetch fits, and so does any test fake that answers with a Response. */
export type JsonFetch = (input: string, init?: RequestInit) => Promise<Response>;
export type JsonClientDeps = { fetch?: JsonFetch };

type Common = {
  headers?: Record<string, string>;
  /** For the whole call, retries and body included. */
  timeoutMs: number;
  /** A 2xx body past this many bytes is refused (too_large); an error body past it is dropped, its status kept. */
  maxBytes?: number;
  redirect?: RequestInit["redirect"];
};

/** Idempotent: may be retried on the listed statuses, inside the same deadline. */
export type JsonGet = Common & { method?: "GET"; retry?: { statuses: readonly number[]; delayMs?: number } };
/** Sent once, whatever comes back: a token request spends its code or refresh token. */
export type JsonPost = Common & {
  method: "POST";
  /** A string goes as is (a form body, with the caller's content-type); an object is sent as JSON. */
  body?: string | Record<string, unknown>;
};
export type JsonRequest = JsonGet | JsonPost;

export type JsonAnswer = {
  status: number;
  /** 2xx. */
  ok: boolean;
  /** The parsed body; undefined when there was none or it was not JSON. */
  body: unknown;
  json: boolean;
  /** The answer carried no body at all (204, or a fetch that gave none), as opposed to one that is not JSON. */
  empty: boolean;
};

type Parsed = { json: true; value: unknown } | { json: false };

/**
 * fermix's own JSON requests to endpoints the owner configured: the release manifest and its signature
 * bundles, OAuth token endpoints, provider probes and model listings (channel bot APIs as they come). Those
 * addresses are trusted as written and may be loopback, so nothing here checks addresses.
 *
 * Not the outbound door. A URL a model, a tool or a plugin chooses must go through `guarded-fetch.ts`, never
 * through this client. Streaming provider calls stay on plain fetch + eventsource-parser (`providers/wires/`).
 *
 * Built on ofetch, imported on the first request so that importing this file costs `--version` and `ask`
 * nothing. Every answer comes back, whatever its status, for the caller to turn into its own sentence; what
 * throws is a request that got no usable answer (HttpRequestFailed). Never retried unless the caller opts in,
 * and only for a GET: ofetch's default retries a GET once on 408/409/425/429/5xx and on any transport
 * failure, which a caller with a deadline or a rate limit has to choose rather than inherit.
 *
 * Secrets: messages name the URL without its credentials or query, and the cause is a copy of the platform's
 * transport error (name, code, message), never ofetch's FetchError, whose message has the full URL and whose
 * `options` carry the request's headers and body.
 */
export async function requestJson(url: string, request: JsonRequest, deps: JsonClientDeps = {}): Promise<JsonAnswer> {
  const { ofetch, FetchError } = await import("ofetch");
  const shown = shownUrl(url);
  const send = deps.fetch ?? fetch;
  const retry = request.method === "POST" ? undefined : request.retry;
  const client = ofetch.create(
    {
      // ofetch's own parsing guesses from content-type and falls back to the raw text (destr); callers here
      // need to know whether it was JSON, and the endpoints do not all label it.
      parseResponse: (text: string): Parsed => {
        try {
          return { json: true, value: JSON.parse(text) };
        } catch {
          return { json: false };
        }
      },
      retry: retry ? 1 : false,
      retryStatusCodes: retry ? [...retry.statuses] : [],
      retryDelay: retry?.delayMs ?? 0,
    },
    { fetch: capped(send, shown, request.maxBytes) as typeof fetch },
  );
  try {
    const response = await client.raw<Parsed>(url, {
      method: request.method ?? "GET",
      headers: request.headers,
      body: request.method === "POST" ? request.body : undefined,
      redirect: request.redirect,
      // One deadline for the whole call: ofetch's `timeout` would restart per attempt and replace the
      // platform's TimeoutError (which callers recognise) with its own.
      signal: AbortSignal.timeout(request.timeoutMs),
    });
    return answer(response.status, response._data);
  } catch (err) {
    if (HttpRequestFailed.is(err)) throw err;
    if (err instanceof FetchError) {
      if (err.response) return answer(err.response.status, err.data as Parsed | undefined);
      throw failure("unreachable", url, shown, request.timeoutMs, err.cause ?? err);
    }
    // Anything else rose while ofetch read the body.
    throw failure("cut", url, shown, request.timeoutMs, err);
  }
}

function answer(status: number, parsed: Parsed | undefined): JsonAnswer {
  return {
    status,
    ok: status >= 200 && status < 300,
    body: parsed?.json ? parsed.value : undefined,
    json: parsed?.json ?? false,
    empty: parsed === undefined,
  };
}

/**
 * The injected fetch with the size cap in its body: ofetch reads the whole body with `text()` before the
 * caller sees it, so the cap has to be in the stream it reads.
 */
function capped(send: JsonFetch, shown: string, maxBytes: number | undefined): JsonFetch {
  return async (input, init) => {
    const response = await send(input, plainInit(init));
    if (maxBytes === undefined || response.body === null) return response;
    const refuse = response.ok;
    const tooLarge = () =>
      HttpRequestFailed(`the answer from ${shown} is larger than ${maxBytes} bytes; refusing it`, {
        url: shown,
        kind: "too_large",
        timedOut: false,
      });
    const declared = Number(response.headers.get("content-length") ?? Number.NaN);
    let size = 0;
    const limit = new TransformStream<Uint8Array, Uint8Array>({
      start(controller) {
        if (refuse && declared > maxBytes) controller.error(tooLarge());
      },
      transform(chunk, controller) {
        size += chunk.byteLength;
        if (size <= maxBytes) controller.enqueue(chunk);
        // An error body is only ever a detail; past the cap it is dropped and its status still decides.
        else if (refuse) controller.error(tooLarge());
        else controller.terminate();
      },
    });
    return new Response(response.body.pipeThrough(limit), {
      status: response.status,
      statusText: response.statusText,
      headers: response.headers,
    });
  };
}

/** Only the fetch standard's fields reach the injected fetch, not ofetch's own options. */
function plainInit(init: RequestInit | undefined): RequestInit {
  const plain: RequestInit = {};
  if (!init) return plain;
  for (const key of ["method", "headers", "body", "redirect", "signal"] as const) {
    if (init[key] !== undefined && init[key] !== null) (plain as Record<string, unknown>)[key] = init[key];
  }
  return plain;
}

function failure(kind: "unreachable" | "cut", url: string, shown: string, timeoutMs: number, raw: unknown) {
  const cause = scrubbed(raw, url, shown);
  const timedOut = cause.name === "TimeoutError";
  const message = timedOut
    ? `no ${kind === "cut" ? "whole answer" : "answer"} from ${shown} within ${timeoutMs / 1000} s`
    : kind === "cut"
      ? `the answer from ${shown} broke off: ${cause.message}`
      : `could not reach ${shown}: ${cause.message}`;
  return HttpRequestFailed(message, { url: shown, kind, timedOut }, { cause });
}

/**
 * The transport error as callers read it (name, code, message) and nothing more: Bun's carries the full URL,
 * query key and all, in `path`, and a logger that prints causes would print that.
 */
function scrubbed(raw: unknown, url: string, shown: string): Error & { code?: unknown } {
  const from = raw as { name?: unknown; code?: unknown; message?: unknown } | undefined;
  const message = typeof from?.message === "string" ? from.message : String(raw);
  const cause: Error & { code?: unknown } = new Error(message.replaceAll(url, shown));
  if (typeof from?.name === "string") cause.name = from.name;
  if (from?.code !== undefined) cause.code = from.code;
  return cause;
}

/** The URL as messages show it: no user:password, no query (a key may ride in either). */
function shownUrl(url: string): string {
  try {
    const parsed = new URL(url);
    return `${parsed.protocol}//${parsed.host}${parsed.pathname}${parsed.search ? "?…" : ""}`;
  } catch {
    return "(an unparsable URL)";
  }
}
