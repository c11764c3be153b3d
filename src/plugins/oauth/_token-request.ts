import { registerSecret } from "../../config/secret-registry.ts";
import { defineError } from "../../error.ts";
import { HttpRequestFailed, type JsonAnswer, requestJson } from "../../net/json-client.ts";
import type { OAuthProvider } from "./providers.ts";

/**
 * One call to a provider's token endpoint (RFC 6749 §4.1.3 and §6). Errors carry the provider's `error`
 * code and description, never the request body: that holds the client secret, a code or a refresh token.
 */
export const OAuthTokenRejected = defineError<{ provider: string; error: string; status: number }>(
  "oauth_token_rejected",
);
export const OAuthUnreachable = defineError<{ provider: string }>("oauth_unreachable");

export type OAuthClient = { clientId: string; clientSecret: string };

/** A token endpoint that has not answered in this long will not; the login or the plugin call says so. */
const TOKEN_TIMEOUT_MS = 30_000;
/**
 * A token answer is a few KB. One past this is not read on: the request fails as OAuthUnreachable with the
 * JSON client's "larger than … bytes" (sent once, as every token request here is).
 */
export const TOKEN_ANSWER_MAX_BYTES = 256 * 1024;

export type TokenResponse = {
  access_token: string;
  refresh_token?: string;
  expires_in?: number;
  /** As granted, when the provider says; absent means "as requested" (RFC 6749 §5.1). */
  scopes?: string[];
  account?: string;
};

export async function requestToken(
  provider: OAuthProvider,
  params: Record<string, string>,
  client: OAuthClient,
  fetchFn: typeof fetch,
): Promise<TokenResponse> {
  const headers: Record<string, string> = { Accept: "application/json", ...provider.tokenHeaders };
  const fields = { ...params };
  if (provider.clientAuth === "basic") {
    // §2.3.1: the id and secret are form-encoded before they are joined, so a ":" in either survives.
    const pair = `${formEncode(client.clientId)}:${formEncode(client.clientSecret)}`;
    headers.Authorization = `Basic ${Buffer.from(pair).toString("base64")}`;
  } else {
    fields.client_id = client.clientId;
    fields.client_secret = client.clientSecret;
  }
  let body: string;
  if (provider.bodyEncoding === "json") {
    headers["Content-Type"] = "application/json";
    body = JSON.stringify(fields);
  } else {
    headers["Content-Type"] = "application/x-www-form-urlencoded";
    body = new URLSearchParams(fields).toString();
  }

  // Sent once, whatever comes back: an authorization code is single-use, and a rotating provider may already
  // have spent the refresh token when its answer is lost, so a retry could only end in invalid_grant.
  let res: JsonAnswer;
  try {
    res = await requestJson(
      provider.tokenUrl,
      {
        method: "POST",
        headers,
        body,
        redirect: "error",
        timeoutMs: TOKEN_TIMEOUT_MS,
        maxBytes: TOKEN_ANSWER_MAX_BYTES,
      },
      { fetch: fetchFn },
    );
  } catch (err) {
    if (!HttpRequestFailed.is(err)) throw err;
    const why = err.cause instanceof Error ? err.cause.message : err.message;
    throw OAuthUnreachable(`could not reach ${provider.name}'s token endpoint ${provider.tokenUrl}: ${why}`, {
      provider: provider.name,
    });
  }
  const json = asObject(res.body);
  // GitHub reports a bad code with HTTP 200 and an `error` field, so the field decides, not the status.
  if (!json || typeof json.error === "string" || !res.ok || typeof json.access_token !== "string") {
    const error = typeof json?.error === "string" ? json.error : res.ok ? "no_access_token" : `http_${res.status}`;
    const description = typeof json?.error_description === "string" ? `: ${clip(json.error_description)}` : "";
    throw OAuthTokenRejected(`${provider.name} refused the token request (${error})${description}`, {
      provider: provider.name,
      error,
      status: res.status,
    });
  }
  const refreshToken = typeof json.refresh_token === "string" && json.refresh_token ? json.refresh_token : undefined;
  // Secrets from here on: whatever fails between this answer and auth.json must not print them.
  registerSecret(json.access_token);
  registerSecret(refreshToken);
  return {
    access_token: json.access_token,
    refresh_token: refreshToken,
    expires_in: expiresIn(json.expires_in),
    scopes: typeof json.scope === "string" ? json.scope.split(/[\s,]+/).filter(Boolean) : undefined,
    account: accountOf(provider.name, json),
  };
}

/** Who the token belongs to, where the token response says so without another API call. */
function accountOf(provider: string, json: Record<string, unknown>): string | undefined {
  if (provider === "notion") {
    const user = (json.owner as { user?: { name?: unknown; person?: { email?: unknown } } } | undefined)?.user;
    const email = user?.person?.email;
    if (typeof email === "string") return email;
    if (typeof json.workspace_name === "string") return json.workspace_name;
  }
  // Google includes an id_token only when openid/email was asked for; it came straight from the token
  // endpoint over TLS, which is what lets us read its claims without checking the signature (OIDC §3.1.3.7).
  if (typeof json.id_token === "string") {
    const payload = json.id_token.split(".")[1];
    const claims = payload ? parseJson(Buffer.from(payload, "base64url").toString("utf8")) : undefined;
    if (typeof claims?.email === "string") return claims.email;
  }
  return undefined;
}

function expiresIn(value: unknown): number | undefined {
  const n = typeof value === "string" ? Number(value) : value;
  return typeof n === "number" && Number.isFinite(n) && n > 0 ? n : undefined;
}

function parseJson(text: string): Record<string, unknown> | undefined {
  try {
    return asObject(JSON.parse(text));
  } catch {
    return undefined;
  }
}

function asObject(value: unknown): Record<string, unknown> | undefined {
  return value && typeof value === "object" && !Array.isArray(value) ? (value as Record<string, unknown>) : undefined;
}

function formEncode(value: string): string {
  return new URLSearchParams({ v: value }).toString().slice(2);
}

function clip(text: string): string {
  const line = text.replace(/\s+/g, " ").trim();
  return line.length > 200 ? `${line.slice(0, 200)}…` : line;
}
