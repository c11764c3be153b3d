import { defineError } from "../../error.ts";
import { readCapped, readCappedText } from "../../net/read-capped.ts";

export const DEFAULT_GRAPH_BASE = "https://graph.facebook.com";
/** Meta retires a Graph version about two years after it ships (v19.0, the earlier product's default, went in 2026). */
export const DEFAULT_GRAPH_VERSION = "v25.0";

/** Graph answered with an error body: `{error: {message, type, code, error_subcode, fbtrace_id}}`. */
export const WhatsAppApiError = defineError<{
  path: string;
  status: number;
  /** Graph's own error code (190: the token; 131047: outside the 24-hour window; 130429: rate limit). */
  graphCode?: number;
  subcode?: number;
  description: string;
  /** Worth trying again a little later (a rate limit, a 5xx). */
  transient: boolean;
}>("whatsapp_api_error");

/** No answer at all: the connection failed, broke off, or the deadline passed. */
export const WhatsAppUnreachable = defineError<{ path: string; transient: boolean }>("whatsapp_unreachable");

export const WhatsAppFileTooLarge = defineError<{ maxBytes: number; size?: number }>("whatsapp_file_too_large");

export type CallOptions = { timeoutMs?: number };
export type UploadFile = { bytes: Uint8Array; filename: string; mime: string };

export type GraphApi = {
  get<T = unknown>(path: string, query?: Record<string, string>, options?: CallOptions): Promise<T>;
  post<T = unknown>(path: string, body: Record<string, unknown>, options?: CallOptions): Promise<T>;
  /** A multipart POST with one `file` field among the text fields (/{phone_number_id}/media). */
  upload<T = unknown>(
    path: string,
    fields: Record<string, string>,
    file: UploadFile,
    options?: CallOptions,
  ): Promise<T>;
  /** A media URL Graph handed out, fetched with the token, refused past `maxBytes` (declared or streamed). */
  download(url: string, maxBytes: number, options?: CallOptions): Promise<{ bytes: Uint8Array; mime?: string }>;
  /** Takes the access token out of a text that might hold it. */
  redact(text: string): string;
};

export type GraphApiDeps = {
  /** https://graph.facebook.com, or a test endpoint the owner configured (trusted as written). */
  baseUrl: string;
  version: string;
  token: string;
  fetch?: (url: string, init?: RequestInit) => Promise<Response>;
  /** MAX_ANSWER_BYTES unless a test sets a smaller one. */
  maxAnswerBytes?: number;
};

const DEFAULT_TIMEOUT_MS = 30_000;
/**
 * The most of one Graph answer read (a send's ids, a media URL, a phone number's details: each under a KB). Past
 * it the read stops; a good answer is refused unparsed (WhatsAppApiError `answer too large`, not transient), an
 * error answer is judged by its status and what fitted.
 */
export const MAX_ANSWER_BYTES = 4 * 1024 * 1024;
/** A media download's error body is read this far for its message, the rest dropped. */
const MAX_ERROR_BODY_BYTES = 64 * 1024;
// Graph's throttling codes: app (4), account (80007), Cloud API throughput (130429), pair rate (131056).
const RATE_LIMIT_CODES = new Set([4, 80007, 130429, 131056]);
const TRANSIENT_TRANSPORT = new Set(["ECONNRESET", "ConnectionClosed", "EPIPE", "ETIMEDOUT", "ECONNABORTED"]);

/**
 * A small Graph API client for the WhatsApp Cloud API on the platform's fetch. The token goes in the
 * Authorization header only, never in a URL; anything Graph says passes through `redact` before it reaches a
 * message. Media URLs Graph hands out are fetched with the same token, so only https ones are followed (or the
 * configured base's own origin, a test endpoint).
 */
export function createGraphApi(deps: GraphApiDeps): GraphApi {
  const base = deps.baseUrl.replace(/\/+$/, "");
  const origin = new URL(base).origin;
  const send = deps.fetch ?? fetch;
  const redact = (text: string) => (deps.token ? text.replaceAll(deps.token, "<access-token>") : text);
  const auth = { authorization: `Bearer ${deps.token}` };
  const maxAnswerBytes = deps.maxAnswerBytes ?? MAX_ANSWER_BYTES;

  async function request<T>(path: string, init: RequestInit, options: CallOptions = {}): Promise<T> {
    const timeoutMs = options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
    const signal = AbortSignal.timeout(timeoutMs);
    let response: Response | undefined;
    let read: { body: Uint8Array; truncated: boolean };
    try {
      response = await send(`${base}/${deps.version}/${path}`, {
        ...init,
        headers: { ...auth, ...(init.headers as Record<string, string>) },
        signal,
      });
      read = await readCapped(response, maxAnswerBytes);
    } catch (err) {
      throw unreachable(path, err, signal.aborted, timeoutMs, redact, response !== undefined);
    }
    const body = read.body;
    if (read.truncated && response.ok) {
      const where = path.split("?")[0]!;
      throw WhatsAppApiError(`WhatsApp ${where}: the answer is larger than ${maxAnswerBytes} bytes; refusing it`, {
        path: where,
        status: response.status,
        description: "answer too large",
        transient: false,
      });
    }
    let parsed: GraphAnswer | undefined;
    try {
      parsed = JSON.parse(new TextDecoder().decode(body)) as GraphAnswer;
    } catch {
      parsed = undefined;
    }
    if (response.ok && parsed && !parsed.error) return parsed as T;
    throw apiError(path, response, parsed, redact);
  }

  return {
    redact,
    get(path, query = {}, options) {
      const search = new URLSearchParams(query).toString();
      return request(search ? `${path}?${search}` : path, { method: "GET" }, options);
    },
    post(path, body, options) {
      return request(
        path,
        { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(body) },
        options,
      );
    },
    upload(path, fields, file, options = {}) {
      const form = new FormData();
      for (const [name, value] of Object.entries(fields)) form.append(name, value);
      form.append("file", new Blob([file.bytes as Uint8Array<ArrayBuffer>], { type: file.mime }), file.filename);
      return request(path, { method: "POST", body: form }, { timeoutMs: 120_000, ...options });
    },
    async download(url, maxBytes, options = {}) {
      const target = new URL(url);
      if (target.protocol !== "https:" && target.origin !== origin) {
        throw WhatsAppApiError("WhatsApp gave a media URL that is not https; not sending the token there", {
          path: "media download",
          status: 0,
          description: "media URL not https",
          transient: false,
        });
      }
      const timeoutMs = options.timeoutMs ?? 120_000;
      const signal = AbortSignal.timeout(timeoutMs);
      let response: Response;
      try {
        response = await send(target.href, { headers: auth, signal });
      } catch (err) {
        throw unreachable("media download", err, signal.aborted, timeoutMs, redact);
      }
      if (!response.ok) {
        const text = await readCappedText(response, MAX_ERROR_BODY_BYTES);
        let parsed: GraphAnswer | undefined;
        try {
          parsed = JSON.parse(text) as GraphAnswer;
        } catch {}
        throw apiError("media download", response, parsed, redact);
      }
      const declared = Number(response.headers.get("content-length") ?? Number.NaN);
      if (declared > maxBytes) {
        await response.body?.cancel();
        throw tooLarge(declared, maxBytes);
      }
      let read: { body: Uint8Array; truncated: boolean };
      try {
        read = await readCapped(response, maxBytes);
      } catch (err) {
        throw unreachable("media download", err, signal.aborted, timeoutMs, redact, true);
      }
      if (read.truncated) throw tooLarge(undefined, maxBytes);
      const mime = response.headers.get("content-type") ?? undefined;
      return { bytes: read.body, ...(mime ? { mime } : {}) };
    },
  };
}

type GraphAnswer = {
  error?: { message?: unknown; type?: unknown; code?: unknown; error_subcode?: unknown; error_data?: unknown };
} & Record<string, unknown>;

function apiError(path: string, response: Response, parsed: GraphAnswer | undefined, redact: (s: string) => string) {
  const error = parsed?.error;
  const graphCode = typeof error?.code === "number" ? error.code : undefined;
  const subcode = typeof error?.error_subcode === "number" ? error.error_subcode : undefined;
  const details = (error?.error_data as { details?: unknown } | undefined)?.details;
  const message = typeof error?.message === "string" ? error.message : `HTTP ${response.status}`;
  const description = redact(typeof details === "string" && details !== message ? `${message} (${details})` : message);
  const transient = response.status >= 500 || response.status === 429 || RATE_LIMIT_CODES.has(graphCode ?? -1);
  return WhatsAppApiError(`WhatsApp ${path.split("?")[0]} failed: ${description}`, {
    path: path.split("?")[0]!,
    status: response.status,
    ...(graphCode !== undefined ? { graphCode } : {}),
    ...(subcode !== undefined ? { subcode } : {}),
    description,
    transient,
  });
}

/** Graph refused the token itself (expired, revoked, mistyped): code 190, or a bare 401. */
export function tokenRejected(err: unknown): boolean {
  return WhatsAppApiError.is(err) && (err.data.graphCode === 190 || err.data.status === 401);
}

function tooLarge(size: number | undefined, maxBytes: number) {
  const mb = (n: number) => `${Math.round((n / 1024 / 1024) * 10) / 10} MB`;
  return WhatsAppFileTooLarge(
    size === undefined
      ? `the WhatsApp media is larger than ${mb(maxBytes)}; refusing it`
      : `the WhatsApp media is ${mb(size)}, over the ${mb(maxBytes)} limit; refusing it`,
    { maxBytes, ...(size !== undefined ? { size } : {}) },
  );
}

function unreachable(
  path: string,
  err: unknown,
  timedOut: boolean,
  timeoutMs: number,
  redact: (s: string) => string,
  cut = false,
) {
  const where = path.split("?")[0]!;
  if (timedOut) {
    return WhatsAppUnreachable(`no answer from WhatsApp (${where}) within ${timeoutMs / 1000} s`, {
      path: where,
      transient: true,
    });
  }
  const from = err as { code?: unknown; message?: unknown } | undefined;
  const code = typeof from?.code === "string" ? from.code : undefined;
  const detail = redact(typeof from?.message === "string" ? from.message : String(err));
  return WhatsAppUnreachable(`could not reach WhatsApp (${where}): ${code ? `${code}: ` : ""}${detail}`, {
    path: where,
    transient: cut || (code !== undefined && TRANSIENT_TRANSPORT.has(code)),
  });
}
