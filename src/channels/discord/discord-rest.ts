import type { REST, RequestData } from "@discordjs/rest";
import { defineError } from "../../error.ts";

export const DEFAULT_API_BASE = "https://discord.com/api";

/** Discord answered with an error: a 4xx with its JSON code, a 5xx after the library's retries, a long 429. */
export const DiscordApiError = defineError<{
  what: string;
  status: number;
  /** Discord's JSON error code (10003 Unknown Channel, 50035 Invalid Form Body…); 0 when it gave none. */
  code: number;
  description: string;
  /** Seconds, on a 429 the adapter would not wait out. */
  retryAfter?: number;
}>("discord_api_error");

/** No answer: the connection failed or the deadline passed (after the library's own retries). */
export const DiscordUnreachable = defineError<{ what: string; transient: boolean }>("discord_unreachable");

/** A rate limit longer than this fails the call (with retryAfter) rather than holding a conversation's queue. */
export const MAX_RATE_LIMIT_WAIT_MS = 30_000;
const REQUEST_TIMEOUT_MS = 15_000;

export type RestCall = Pick<RequestData, "body" | "files" | "auth" | "signal">;

export type DiscordRest = {
  /** One REST call; `what` names it in errors (a route can hold an interaction token, so routes never do). */
  request<T = unknown>(
    what: string,
    method: "GET" | "POST" | "PATCH" | "PUT" | "DELETE",
    route: `/${string}`,
    data?: RestCall,
  ): Promise<T>;
  /** Takes the bot token out of a text that might hold it. */
  redact(text: string): string;
  /** The library's client itself, for @discordjs/ws (it asks GET /gateway/bot through it). */
  client(): Promise<REST>;
};

export type DiscordRestDeps = {
  /** https://discord.com/api (no version), or a test endpoint the owner configured: trusted as written. */
  baseUrl: string;
  token: string;
};

/**
 * REST out through @discordjs/rest: per-route buckets from Discord's X-RateLimit headers, a 429 waited out for
 * its Retry-After (up to MAX_RATE_LIMIT_WAIT_MS, then an error carrying it, which job delivery honours), 5xx and
 * dropped connections retried. The library loads on the first call, so a daemon without Discord never pays for
 * it. Its errors become DiscordApiError/DiscordUnreachable, whose messages hold neither the token (it rides in a
 * header) nor a URL (an interaction's token rides in its path).
 */
export function createDiscordRest(deps: DiscordRestDeps): DiscordRest {
  // The library appends /v10 itself; a base written with a version is taken to mean the same API.
  const api = deps.baseUrl.replace(/\/+$/, "").replace(/\/v\d+$/, "");
  const redact = (text: string) => (deps.token ? text.replaceAll(deps.token, "<bot-token>") : text);
  let rest: Promise<REST> | undefined;
  const client = () => {
    rest ??= import("@discordjs/rest").then((m) =>
      new m.REST({
        api,
        version: "10",
        timeout: REQUEST_TIMEOUT_MS,
        rejectOnRateLimit: (limit) => limit.retryAfter > MAX_RATE_LIMIT_WAIT_MS,
      }).setToken(deps.token),
    );
    return rest;
  };

  return {
    redact,
    client,
    async request<T>(what: string, method: string, route: `/${string}`, data: RestCall = {}): Promise<T> {
      const rest = await client();
      try {
        return (await rest.request({ method: method as never, fullRoute: route, ...data })) as T;
      } catch (err) {
        throw asFermixError(what, err, redact);
      }
    },
  };
}

type LibraryError = {
  name?: unknown;
  status?: unknown;
  code?: unknown;
  message?: unknown;
  retryAfter?: unknown;
};

function asFermixError(what: string, err: unknown, redact: (s: string) => string) {
  const e = (err ?? {}) as LibraryError;
  const message = redact(typeof e.message === "string" ? e.message : String(err));
  // RateLimitError: a limit longer than the adapter waits.
  if (typeof e.retryAfter === "number" && typeof e.status !== "number") {
    // The library's figure includes its own small safety offset (50 ms): whole seconds, at least one.
    const retryAfter = Math.max(1, Math.round(e.retryAfter / 1000));
    return DiscordApiError(`Discord rate-limited ${what}; retry after ${retryAfter} s`, {
      what,
      status: 429,
      code: 0,
      description: "rate limited",
      retryAfter,
    });
  }
  // DiscordAPIError (4xx, with Discord's JSON code) and HTTPError (5xx once retries ran out).
  if (typeof e.status === "number") {
    const code = typeof e.code === "number" ? e.code : 0;
    return DiscordApiError(`Discord refused ${what}: ${message} (HTTP ${e.status}${code ? `, code ${code}` : ""})`, {
      what,
      status: e.status,
      code,
      description: message,
    });
  }
  const aborted = e.name === "AbortError" || e.name === "TimeoutError";
  return DiscordUnreachable(
    aborted ? `no answer from Discord to ${what} in time` : `could not reach Discord for ${what}: ${message}`,
    { what, transient: true },
  );
}
