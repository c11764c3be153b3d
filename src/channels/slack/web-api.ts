import type { WebClient } from "@slack/web-api";
import { defineError } from "../../error.ts";
import { capResponse, readCapped } from "../../net/read-capped.ts";
import { errorKind, SlackApiError, SlackRateLimited, SlackUnreachable } from "./api-errors.ts";

export const DEFAULT_API_BASE = "https://slack.com/api/";
const TIMEOUT_MS = 30_000;
const DOWNLOAD_TIMEOUT_MS = 120_000;
/**
 * The most of one Web API answer read (chat.postMessage, files.*, auth.test, apps.connections.open…: each a few
 * KB). Past it the read stops, the call fails as SlackApiError `answer_too_large`, and nothing is parsed.
 */
export const MAX_ANSWER_BYTES = 4 * 1024 * 1024;

export const SlackFileRefused = defineError<{ reason: string; maxBytes?: number }>("slack_file_refused");

export type SlackLog = { info(msg: string): void; warn(msg: string): void; error(msg: string): void };

export type SlackApi = {
  /** One Web API method with the bot token; resolves with Slack's answer (`ok: true`), or throws a mapped error. */
  call<T extends Record<string, unknown> = Record<string, unknown>>(
    method: string,
    params?: Record<string, unknown>,
  ): Promise<T>;
  /** A user's file from its url_private, with the bot token, refused past `maxBytes` (declared or streamed). */
  download(url: string, maxBytes: number): Promise<Uint8Array>;
  /** The bytes of an external upload, POSTed raw to the upload_url Slack handed out (it carries its own grant). */
  upload(uploadUrl: string, bytes: Uint8Array): Promise<void>;
  /** Takes the tokens out of a text that might hold one. */
  redact(text: string): string;
};

export type SlackApiDeps = {
  /** The Web API's base (https://slack.com/api/), or a test endpoint: owner-configured, trusted as written. */
  baseUrl: string;
  botToken: string;
  /** Tokens to redact besides the bot token (the app-level token). */
  secrets?: string[];
  log: SlackLog;
  /** For the file transfers (the client's own calls use the platform's fetch). */
  fetch?: (url: string, init?: RequestInit) => Promise<Response>;
  /** MAX_ANSWER_BYTES unless a test sets a smaller one. */
  maxAnswerBytes?: number;
};

/**
 * The platform's fetch with each answer's body capped at `maxBytes`, for the SDK's clients, which read a whole
 * answer with `text()` before they look at it.
 */
export function cappedSlackFetch(maxBytes: number = MAX_ANSWER_BYTES): typeof fetch {
  const capped = async (input: string | URL | Request, init?: RequestInit) => {
    const response = await fetch(input, init);
    const method = new URL(response.url || String(input)).pathname.split("/").at(-1) || "the Web API";
    return capResponse(response, maxBytes, () =>
      SlackApiError(`Slack's answer to ${method} is larger than ${maxBytes} bytes; refusing it`, {
        method,
        error: "answer_too_large",
        kind: "remote_rejected",
      }),
    );
  };
  return capped as typeof fetch;
}

/**
 * The Web API through @slack/web-api's WebClient, set up for a daemon: no retries of its own (its default retries a
 * failing call for half an hour, holding the conversation's queue), rate limits rejected with Slack's Retry-After so
 * the caller decides, and every answer's `ok:false` mapped to the facts' four kinds (api-errors.ts). Files go
 * around the client: a download must send the bot token only to Slack's own file host and stop at a cap, and an
 * upload goes to the URL Slack gave without any token.
 */
export async function createSlackApi(deps: SlackApiDeps): Promise<SlackApi> {
  const { WebClient, LogLevel } = await import("@slack/web-api");
  const secrets = [deps.botToken, ...(deps.secrets ?? [])].filter((s) => s.length >= 8);
  const redact = (text: string) => secrets.reduce((out, secret) => out.replaceAll(secret, "<slack-token>"), text);
  const send = deps.fetch ?? fetch;
  const baseUrl = deps.baseUrl.endsWith("/") ? deps.baseUrl : `${deps.baseUrl}/`;
  const client: WebClient = new WebClient(deps.botToken, {
    slackApiUrl: baseUrl,
    retryConfig: { retries: 0 },
    rejectRateLimitedCalls: true,
    timeout: TIMEOUT_MS,
    fetch: cappedSlackFetch(deps.maxAnswerBytes),
    logger: sdkLogger(deps.log, redact, LogLevel.WARN),
  });
  const fileHost = new URL(baseUrl).origin;

  return {
    redact,
    async call(method, params = {}) {
      try {
        return (await client.apiCall(method, params)) as never;
      } catch (err) {
        throw mapError(method, err, redact);
      }
    },

    async download(url, maxBytes) {
      const target = new URL(url);
      // The bot token goes to Slack's file host (or the configured test endpoint) and nowhere else.
      if (
        !(target.origin === fileHost || (target.protocol === "https:" && /(^|\.)slack\.com$/.test(target.hostname)))
      ) {
        throw SlackFileRefused(`not downloading a Slack file from ${target.host}: not a Slack file host`, {
          reason: "host",
        });
      }
      let response: Response;
      try {
        response = await send(url, {
          headers: { authorization: `Bearer ${deps.botToken}` },
          // A redirect is Slack's sign-in page: the token lacks files:read. Never followed with the token.
          redirect: "manual",
          signal: AbortSignal.timeout(DOWNLOAD_TIMEOUT_MS),
        });
      } catch (err) {
        throw SlackUnreachable(`could not download a Slack file: ${redact(String((err as Error)?.message ?? err))}`, {
          method: "file download",
          transient: true,
        });
      }
      const type = response.headers.get("content-type") ?? "";
      if (response.status !== 200 || type.startsWith("text/html")) {
        await response.body?.cancel();
        throw SlackFileRefused(
          `Slack did not hand over the file (HTTP ${response.status}${type.startsWith("text/html") ? ", a sign-in page" : ""}): the app needs the files:read scope`,
          { reason: "refused" },
        );
      }
      const declared = Number(response.headers.get("content-length") ?? Number.NaN);
      if (declared > maxBytes) {
        await response.body?.cancel();
        throw tooLarge(maxBytes);
      }
      const read = await readCapped(response, maxBytes);
      if (read.truncated) throw tooLarge(maxBytes);
      return read.body;
    },

    async upload(uploadUrl, bytes) {
      let response: Response;
      try {
        response = await send(uploadUrl, {
          method: "POST",
          headers: { "content-type": "application/octet-stream" },
          body: bytes as Uint8Array<ArrayBuffer>,
          redirect: "error",
          signal: AbortSignal.timeout(DOWNLOAD_TIMEOUT_MS),
        });
      } catch (err) {
        throw SlackUnreachable(`could not upload a file to Slack: ${redact(String((err as Error)?.message ?? err))}`, {
          method: "file upload",
          transient: true,
        });
      }
      await response.body?.cancel();
      if (response.status !== 200) {
        throw SlackApiError(`Slack refused the file upload (HTTP ${response.status})`, {
          method: "file upload",
          error: `http_${response.status}`,
          kind: "remote_rejected",
        });
      }
    },
  };
}

function tooLarge(maxBytes: number) {
  return SlackFileRefused(
    `the Slack file is larger than ${Math.round((maxBytes / 1024 / 1024) * 10) / 10} MB; refusing it`,
    { reason: "size", maxBytes },
  );
}

/** The SDK's errors by their `code` (the classes differ between bundled copies): Slack's word kept, tokens out. */
function mapError(method: string, err: unknown, redact: (s: string) => string): Error {
  // The cap's own error, as thrown by the body read or wrapped by the SDK as a request error.
  const own = [err, (err as { original?: unknown })?.original].find((e) => SlackApiError.is(e));
  if (own) return own as Error;
  const e = err as { code?: string; data?: { error?: unknown }; retryAfter?: unknown; statusCode?: unknown };
  switch (e?.code) {
    case "slack_webapi_platform_error": {
      const error = typeof e.data?.error === "string" ? e.data.error : "unknown_error";
      return SlackApiError(`Slack ${method} failed: ${error}`, { method, error, kind: errorKind(error) });
    }
    case "slack_webapi_rate_limited_error": {
      const retryAfter = typeof e.retryAfter === "number" ? e.retryAfter : 1;
      return SlackRateLimited(`Slack rate-limited ${method}; retry after ${retryAfter} s`, { method, retryAfter });
    }
    case "slack_webapi_http_error": {
      const status = typeof e.statusCode === "number" ? e.statusCode : 0;
      return SlackApiError(`Slack ${method} failed: HTTP ${status}`, {
        method,
        error: `http_${status}`,
        kind: "remote_rejected",
      });
    }
    default: {
      const original = (err as { original?: { message?: string } })?.original?.message;
      const detail = redact(String(original ?? (err as Error)?.message ?? err));
      return SlackUnreachable(`could not reach Slack for ${method}: ${detail}`, { method, transient: true });
    }
  }
}

/**
 * The SDKs' own logging into the channel's log: their warnings and errors only, redacted, as info lines — every
 * failure they log also reaches fermix's code as an error, which says it once, in its own words.
 */
export function sdkLogger(log: SlackLog, redact: (s: string) => string, level: unknown) {
  const line = (args: unknown[]) => redact(args.map((a) => (a instanceof Error ? a.message : String(a))).join(" "));
  return {
    debug() {},
    info() {},
    warn: (...args: unknown[]) => log.info(`slack sdk: ${line(args)}`),
    error: (...args: unknown[]) => log.info(`slack sdk: ${line(args)}`),
    setLevel() {},
    getLevel: () => level as never,
    setName() {},
  };
}
