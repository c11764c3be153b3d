import { redact } from "../../observability/redact.ts";
import { isRecord } from "../manifest/templates.ts";

/**
 * The sentences a failed plugin call turns into. The credential ones are fixed by the spec ("When a credential
 * stops working") so the agent can quote the exact fix; the rest name the tool, the status and what to do.
 */

export type AuthType = "none" | "oauth2" | "api_key";

export const needsReconnection = (plugin: string) =>
  `${plugin} needs reconnection. Run fermix plugins auth reauthorize ${plugin}.`;
export const apiKeyRejected = (plugin: string) => `API key rejected — update it with fermix plugins auth set ${plugin}`;
export const notConnected = (plugin: string) =>
  `${plugin} is enabled but not connected. Run fermix plugins auth login ${plugin}.`;

/** What the rail knows when an answer is not a success. */
export type FailedAnswer = {
  plugin: string;
  auth: AuthType;
  tool: string;
  scopes: readonly string[];
  status: number;
  headers: Headers;
  body: Uint8Array;
  credential?: string;
};

const ERROR_BODY_MAX_BYTES = 2048;
const SCOPE_REASONS = new Set(["ACCESS_TOKEN_SCOPE_INSUFFICIENT", "insufficientPermissions"]);
const ITEM_REASONS = new Set(["insufficientFilePermissions", "appNotAuthorizedToFile"]);
const ORGANIZER_REASONS = new Set(["forbiddenForNonOrganizer"]);
const RATE_REASONS = new Set(["rateLimitExceeded", "userRateLimitExceeded", "dailyLimitExceeded", "quotaExceeded"]);

/** Turns a non-success answer (not a redirect) into the sentence the model reads. */
export function describeFailure(answer: FailedAnswer): string {
  const { plugin, auth, status } = answer;
  if (status === 401 && auth === "oauth2") return needsReconnection(plugin);
  if (status === 401 && auth === "api_key") return apiKeyRejected(plugin);
  if (status === 429) return `${plugin} is rate limiting requests (HTTP 429); ${retryHint(answer.headers)}.`;
  if (status === 403) return forbidden(answer);
  return `${answer.tool} failed with HTTP ${status}: ${errorBody(answer)}`;
}

function forbidden(answer: FailedAnswer): string {
  const { plugin, auth, scopes } = answer;
  const reason = googleReasons(answer.body).find(
    (r) => SCOPE_REASONS.has(r) || ITEM_REASONS.has(r) || ORGANIZER_REASONS.has(r) || RATE_REASONS.has(r),
  );
  const needs = scopes.length ? `it needs ${scopes.join(", ")}` : "it needs a permission that was not granted";
  if (reason !== undefined && SCOPE_REASONS.has(reason)) {
    return `${plugin} is missing a permission ${answer.tool} needs (${reason}): ${needs}. Run fermix plugins auth reauthorize ${plugin} and grant it.`;
  }
  if (reason !== undefined && ITEM_REASONS.has(reason)) {
    return `${plugin} has no access to that item (${reason}): the connected account cannot open it; ask its owner to share it, or choose another.`;
  }
  if (reason !== undefined && ORGANIZER_REASONS.has(reason)) {
    return `Only the event's organizer can do that (${reason}); the connected account is not the organizer.`;
  }
  if (reason !== undefined && RATE_REASONS.has(reason)) {
    return `${plugin} is rate limited (${reason}); ${retryHint(answer.headers)}.`;
  }
  // GitHub answers an exhausted rate limit with 403, marked by its headers rather than the body.
  const h = answer.headers;
  if (h.get("x-ratelimit-remaining") === "0" || (h.has("retry-after") && h.get("x-ratelimit-limit") !== null)) {
    return `${plugin} is rate limited (HTTP 403); ${retryHint(h)}.`;
  }
  const fix =
    auth === "oauth2"
      ? `if it was not granted, run fermix plugins auth reauthorize ${plugin}`
      : auth === "api_key"
        ? `check the key's permissions, or replace it with fermix plugins auth set ${plugin}`
        : "check the account's permissions";
  return `${answer.tool} was refused (HTTP 403): the connected account lacks permission; ${needs}; ${fix}. Response: ${errorBody(answer)}`;
}

/** Google puts reasons in `error.errors[].reason` (v1 APIs) and `error.details[].reason` (google.rpc.ErrorInfo). */
function googleReasons(body: Uint8Array): string[] {
  const json = parseJson(body);
  if (!isRecord(json) || !isRecord(json.error)) return [];
  const lists = [json.error.errors, json.error.details].filter(Array.isArray) as unknown[][];
  return lists.flat().flatMap((item) => (isRecord(item) && typeof item.reason === "string" ? [item.reason] : []));
}

/** Retry-After is either seconds or an HTTP date; GitHub also sends x-ratelimit-reset (epoch seconds). */
export function retryHint(headers: Headers): string {
  const after = headers.get("retry-after")?.trim();
  if (after && /^\d+$/.test(after)) return `retry after ${after} seconds (Retry-After: ${after})`;
  if (after) return `retry after ${after} (Retry-After)`;
  // GitHub spells it x-ratelimit-reset, X x-rate-limit-reset; both are epoch seconds.
  const reset = headers.get("x-ratelimit-reset") ?? headers.get("x-rate-limit-reset");
  if (reset && /^\d+$/.test(reset)) return `retry after ${new Date(Number(reset) * 1000).toISOString()}`;
  return "wait a while before trying again";
}

/** The answer's body for an error message: redacted (the credential too), then cut to at most 2 KiB. */
export function errorBody(answer: { body: Uint8Array; credential?: string }): string {
  const text = new TextDecoder().decode(answer.body).trim();
  if (!text) return "(empty body)";
  const clean = redact(text, answer.credential ? [answer.credential] : []);
  return cutBytes(clean, ERROR_BODY_MAX_BYTES);
}

function cutBytes(text: string, max: number): string {
  const bytes = new TextEncoder().encode(text);
  if (bytes.length <= max) return text;
  const marker = "…";
  // Decoding a cut in the middle of a character leaves U+FFFD; drop it rather than show a broken glyph.
  const head = new TextDecoder().decode(bytes.subarray(0, max - 3)).replace(/\uFFFD$/, "");
  return head + marker;
}

export function parseJson(body: Uint8Array): unknown {
  try {
    return JSON.parse(new TextDecoder().decode(body));
  } catch {
    return undefined;
  }
}
