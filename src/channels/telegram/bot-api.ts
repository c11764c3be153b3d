import { defineError } from "../../error.ts";
import { readCapped } from "../../net/read-capped.ts";

export const DEFAULT_API_BASE = "https://api.telegram.org";

/** Telegram answered with an error (`ok: false`, or an HTTP error without a JSON body). */
export const TelegramApiError = defineError<{
  method: string;
  status: number;
  description: string;
  /** Seconds, from `parameters.retry_after` or a Retry-After header (429). */
  retryAfter?: number;
}>("telegram_api_error");

/** No answer at all: the connection failed, broke off, or the deadline passed. */
export const TelegramUnreachable = defineError<{
  method: string;
  /** Worth a quick retry (a reset or cut connection, a timeout), as opposed to a refused connection or DNS. */
  transient: boolean;
}>("telegram_unreachable");

export type CallOptions = { signal?: AbortSignal; timeoutMs?: number };

export type UploadFile = { field: string; bytes: Uint8Array; filename: string; mime: string };

export type BotApi = {
  /** POST /bot<token>/<method> with a JSON body; resolves with `result`. */
  call<T = unknown>(method: string, params?: Record<string, unknown>, options?: CallOptions): Promise<T>;
  /** The same as a multipart body, one file among the fields (sendPhoto, sendDocument, …). */
  upload<T = unknown>(
    method: string,
    fields: Record<string, unknown>,
    file: UploadFile,
    options?: CallOptions,
  ): Promise<T>;
  /** GET /file/bot<token>/<path>, refused past `maxBytes` (declared, or while streaming). */
  download(filePath: string, maxBytes: number, options?: CallOptions): Promise<Uint8Array>;
  /** Takes the token out of a text that might hold it (an error from the platform, a URL). */
  redact(text: string): string;
};

export type BotApiDeps = {
  /** https://api.telegram.org, or a self-hosted Bot API server (owner-configured, so loopback is fine). */
  baseUrl: string;
  token: string;
  fetch?: (url: string, init?: RequestInit) => Promise<Response>;
};

const DEFAULT_TIMEOUT_MS = 30_000;
// getUpdates with 100 updates is a few hundred KB at most; anything near this is not the Bot API.
const MAX_ANSWER_BYTES = 16 * 1024 * 1024;
const TRANSIENT_CODES = new Set(["ECONNRESET", "ConnectionClosed", "EPIPE", "ETIMEDOUT", "ECONNABORTED"]);

/**
 * A small typed client for the Bot API on the platform's fetch. Not grammY: the poller needs its own answers to
 * 409 and 429 (grammY's bot loop stops on a 409), its Node entry (the one Bun picks) sends through node-fetch
 * rather than the runtime's fetch, and it costs ~35 ms to import; not ofetch either: its FetchError puts the whole
 * URL, token included, in its message. Not net/json-client.ts (the owner-configured-endpoint client) because a
 * 50 s long poll must end on the caller's signal at stop(), uploads are multipart, downloads stream under a cap,
 * and its shown URL keeps the path, where the Bot API puts the token. The token rides in every URL's path, so no
 * URL ever reaches a message: errors name the method, and anything the platform says passes through `redact`.
 */
export function createBotApi(deps: BotApiDeps): BotApi {
  const base = deps.baseUrl.replace(/\/+$/, "");
  const send = deps.fetch ?? fetch;
  const redact = (text: string) => (deps.token ? text.replaceAll(deps.token, "<bot-token>") : text);

  async function request<T>(method: string, init: RequestInit, options: CallOptions): Promise<T> {
    const timeoutMs = options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
    const timeout = AbortSignal.timeout(timeoutMs);
    const signal = options.signal ? AbortSignal.any([options.signal, timeout]) : timeout;
    let response: Response | undefined;
    let body: Uint8Array;
    try {
      response = await send(`${base}/bot${deps.token}/${method}`, { ...init, signal });
      const read = await readCapped(response, MAX_ANSWER_BYTES);
      // Over the cap the rest is never read: the answer is refused whole, and the poller backs off as for a fault.
      if (read.truncated) {
        throw TelegramApiError(
          `Telegram ${method} answered more than ${MAX_ANSWER_BYTES / 1024 / 1024} MiB; refused unread`,
          { method, status: response.status, description: "answer over the size cap" },
        );
      }
      body = read.body;
    } catch (err) {
      if (TelegramApiError.is(err)) throw err;
      // The caller's own cancellation (stop) goes back to it as is.
      if (options.signal?.aborted) throw options.signal.reason;
      // An answer that broke off after it began is a dropped connection: worth the quick retry.
      throw unreachable(method, err, timeout.aborted, timeoutMs, redact, response !== undefined);
    }
    let parsed: ApiAnswer | undefined;
    try {
      parsed = JSON.parse(new TextDecoder().decode(body)) as ApiAnswer;
    } catch {
      parsed = undefined;
    }
    if (response.ok && parsed?.ok === true) return parsed.result as T;
    const description = redact(
      typeof parsed?.description === "string" ? parsed.description : `HTTP ${response.status} ${response.statusText}`,
    );
    const retryAfter = retryAfterOf(parsed, response.headers);
    throw TelegramApiError(`Telegram ${method} failed: ${description}`, {
      method,
      status: typeof parsed?.error_code === "number" ? parsed.error_code : response.status,
      description,
      ...(retryAfter !== undefined ? { retryAfter } : {}),
    });
  }

  return {
    redact,
    call: (method, params = {}, options = {}) =>
      request(
        method,
        { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(params) },
        options,
      ),
    upload(method, fields, file, options = {}) {
      const form = new FormData();
      for (const [name, value] of Object.entries(fields)) {
        if (value === undefined) continue;
        form.append(name, typeof value === "object" ? JSON.stringify(value) : String(value));
      }
      form.append(file.field, new Blob([file.bytes as Uint8Array<ArrayBuffer>], { type: file.mime }), file.filename);
      return request(method, { method: "POST", body: form }, { timeoutMs: 120_000, ...options });
    },
    async download(filePath, maxBytes, options = {}) {
      const timeoutMs = options.timeoutMs ?? 120_000;
      const timeout = AbortSignal.timeout(timeoutMs);
      const signal = options.signal ? AbortSignal.any([options.signal, timeout]) : timeout;
      const path = filePath.split("/").map(encodeURIComponent).join("/");
      let response: Response;
      try {
        response = await send(`${base}/file/bot${deps.token}/${path}`, { signal });
      } catch (err) {
        if (options.signal?.aborted) throw options.signal.reason;
        throw unreachable("file download", err, timeout.aborted, timeoutMs, redact);
      }
      if (!response.ok) {
        await response.body?.cancel();
        throw TelegramApiError(`Telegram file download failed: HTTP ${response.status}`, {
          method: "file download",
          status: response.status,
          description: `HTTP ${response.status}`,
        });
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
        if (options.signal?.aborted) throw options.signal.reason;
        throw unreachable("file download", err, timeout.aborted, timeoutMs, redact, true);
      }
      if (read.truncated) throw tooLarge(undefined, maxBytes);
      return read.body;
    },
  };
}

type ApiAnswer = {
  ok?: boolean;
  result?: unknown;
  error_code?: unknown;
  description?: unknown;
  parameters?: { retry_after?: unknown };
};

export const TelegramFileTooLarge = defineError<{ maxBytes: number; size?: number }>("telegram_file_too_large");

function tooLarge(size: number | undefined, maxBytes: number) {
  const mb = (n: number) => `${Math.round((n / 1024 / 1024) * 10) / 10} MB`;
  return TelegramFileTooLarge(
    size === undefined
      ? `the Telegram file is larger than ${mb(maxBytes)}; refusing it`
      : `the Telegram file is ${mb(size)}, over the ${mb(maxBytes)} limit; refusing it`,
    { maxBytes, ...(size !== undefined ? { size } : {}) },
  );
}

/** Body `parameters.retry_after` first (Telegram's own), then a Retry-After header in seconds or as a date. */
function retryAfterOf(parsed: ApiAnswer | undefined, headers: Headers): number | undefined {
  const fromBody = parsed?.parameters?.retry_after;
  if (typeof fromBody === "number" && fromBody >= 0) return fromBody;
  const header = headers.get("retry-after");
  if (header === null) return undefined;
  const seconds = Number(header);
  if (Number.isFinite(seconds) && seconds >= 0) return seconds;
  const at = Date.parse(header);
  return Number.isNaN(at) ? undefined : Math.max(0, Math.ceil((at - Date.now()) / 1000));
}

/** Bun's transport errors carry the URL (token and all) in `path`; only the name, code and a redacted message go on. */
function unreachable(
  method: string,
  err: unknown,
  timedOut: boolean,
  timeoutMs: number,
  redact: (s: string) => string,
  cut = false,
) {
  const from = err as { name?: unknown; code?: unknown; message?: unknown } | undefined;
  const code = typeof from?.code === "string" ? from.code : undefined;
  if (timedOut) {
    return TelegramUnreachable(`no answer from Telegram to ${method} within ${timeoutMs / 1000} s`, {
      method,
      transient: true,
    });
  }
  const detail = redact(typeof from?.message === "string" ? from.message : String(err));
  return TelegramUnreachable(`could not reach Telegram for ${method}: ${code ? `${code}: ` : ""}${detail}`, {
    method,
    transient: cut || (code !== undefined && TRANSIENT_CODES.has(code)),
  });
}
