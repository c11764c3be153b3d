import { registerSecret } from "../config/secret-registry.ts";
import { defineError } from "../error.ts";
import { createBackoff } from "../net/backoff.ts";
import { HttpRequestFailed, type JsonAnswer, requestJson } from "../net/json-client.ts";
import type { ProfileSpec } from "./profiles.ts";

/**
 * One provider token-endpoint call (RFC 6749 §4.1.3 and §6) with a public client. Errors carry the provider's
 * `error` code and a clipped description, never the request body: it holds a code or a refresh token.
 */
export const TokenRefused = defineError<{ profile: string; error: string; status: number }>("auth_token_refused");
export const TokenEndpointUnreachable = defineError<{ profile: string }>("auth_token_unreachable");

export type TokenAnswer = {
  access_token: string;
  refresh_token?: string;
  id_token?: string;
  /** Milliseconds since the epoch, from expires_in or else the access token's own `exp`. */
  expiresAt?: number;
};

const TIMEOUT_MS = 30_000;
/**
 * A token answer is a few KB (an id_token included). One past this is not read on and the call fails at once
 * (TokenEndpointUnreachable, not retried: the endpoint may already have spent the grant).
 */
export const TOKEN_ANSWER_MAX_BYTES = 256 * 1024;
/** A refresh that got no answer is tried again, up to this many times in all, by the shared backoff rule from 350 ms. */
const REFRESH_ATTEMPTS = 3;
const REFRESH_BACKOFF = { initialMs: 350, maxMs: 2_000 };

export type TokenEndpointDeps = { fetch?: typeof fetch; now?: () => number; sleep?: (ms: number) => Promise<void> };

export function exchangeCode(
  spec: ProfileSpec,
  fields: { code: string; redirectUri: string; verifier: string; challenge?: string },
  deps: TokenEndpointDeps,
): Promise<TokenAnswer> {
  const body: Record<string, string> = {
    grant_type: "authorization_code",
    code: fields.code,
    redirect_uri: fields.redirectUri,
    client_id: spec.clientId,
    code_verifier: fields.verifier,
  };
  if (spec.authorize?.echoChallenge && fields.challenge) body.code_challenge = fields.challenge;
  // A code is single-use: sent once, whatever happens.
  return call(spec, body, deps, 1);
}

export function refreshGrant(spec: ProfileSpec, refreshToken: string, deps: TokenEndpointDeps): Promise<TokenAnswer> {
  return call(
    spec,
    { grant_type: "refresh_token", refresh_token: refreshToken, client_id: spec.clientId },
    deps,
    REFRESH_ATTEMPTS,
  );
}

async function call(
  spec: ProfileSpec,
  fields: Record<string, string>,
  deps: TokenEndpointDeps,
  attempts: number,
): Promise<TokenAnswer> {
  const json = spec.bodyEncoding === "json";
  const headers = {
    Accept: "application/json",
    "Content-Type": json ? "application/json" : "application/x-www-form-urlencoded",
  };
  const body = json ? JSON.stringify(fields) : new URLSearchParams(fields).toString();
  const sleep = deps.sleep ?? ((ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms)));
  let res: JsonAnswer | undefined;
  const waits = createBackoff(REFRESH_BACKOFF);
  for (let attempt = 1; ; attempt++) {
    try {
      res = await requestJson(
        spec.tokenUrl,
        {
          method: "POST",
          headers,
          body,
          redirect: "error",
          timeoutMs: TIMEOUT_MS,
          maxBytes: TOKEN_ANSWER_MAX_BYTES,
        },
        { fetch: deps.fetch },
      );
      // A 5xx is the endpoint failing, not an answer about the grant: worth the same retry as no answer.
      if (res.status < 500 || attempt >= attempts) break;
    } catch (err) {
      if (!HttpRequestFailed.is(err)) throw err;
      if (err.data.kind === "too_large") {
        throw TokenEndpointUnreachable(`${spec.label}'s token endpoint ${spec.tokenUrl}: ${err.message}`, {
          profile: spec.id,
        });
      }
      if (attempt >= attempts) {
        const why = err.cause instanceof Error ? err.cause.message : err.message;
        throw TokenEndpointUnreachable(`could not reach ${spec.label}'s token endpoint ${spec.tokenUrl}: ${why}`, {
          profile: spec.id,
        });
      }
    }
    await sleep(waits.next());
  }
  const answer = asObject(res?.body);
  if (!res?.ok || !answer || typeof answer.access_token !== "string" || !answer.access_token) {
    const nested = answer?.error as { type?: unknown } | undefined;
    const error =
      typeof answer?.error === "string"
        ? answer.error
        : typeof nested?.type === "string"
          ? nested.type
          : res?.ok
            ? "no_access_token"
            : `http_${res?.status}`;
    const description = typeof answer?.error_description === "string" ? `: ${clip(answer.error_description)}` : "";
    throw TokenRefused(`${spec.label} refused the token request (${error})${description}`, {
      profile: spec.id,
      error,
      status: res?.status ?? 0,
    });
  }
  const now = (deps.now ?? Date.now)();
  const expiresIn = typeof answer.expires_in === "string" ? Number(answer.expires_in) : answer.expires_in;
  const out: TokenAnswer = { access_token: answer.access_token };
  if (typeof answer.refresh_token === "string" && answer.refresh_token) out.refresh_token = answer.refresh_token;
  // Secrets from here on: whatever fails between this answer and auth.json must not print them.
  for (const token of [out.access_token, out.refresh_token, answer.id_token]) {
    if (typeof token === "string") registerSecret(token);
  }
  if (typeof answer.id_token === "string") out.id_token = answer.id_token;
  if (typeof expiresIn === "number" && Number.isFinite(expiresIn) && expiresIn > 0) {
    out.expiresAt = now + expiresIn * 1000;
  } else {
    const exp = jwtClaims(answer.access_token)?.exp;
    if (typeof exp === "number") out.expiresAt = exp * 1000;
  }
  return out;
}

/** A JWT's claims, read without checking the signature: it came straight from the token endpoint over TLS. */
export function jwtClaims(token: string | undefined): Record<string, unknown> | undefined {
  const payload = token?.split(".")[1];
  if (!payload) return undefined;
  try {
    return asObject(JSON.parse(Buffer.from(payload, "base64url").toString("utf8")));
  } catch {
    return undefined;
  }
}

/** The email and (ChatGPT) account id the tokens name, where they say. */
export function accountOf(answer: TokenAnswer): { email?: string; id?: string } | undefined {
  const id = jwtClaims(answer.id_token);
  const access = jwtClaims(answer.access_token);
  const out: { email?: string; id?: string } = {};
  const email = id?.email ?? access?.email;
  if (typeof email === "string") out.email = email;
  for (const claims of [id, access]) {
    const auth = asObject(claims?.["https://api.openai.com/auth"]);
    if (typeof auth?.chatgpt_account_id === "string") {
      out.id = auth.chatgpt_account_id;
      break;
    }
  }
  return out.email || out.id ? out : undefined;
}

function asObject(value: unknown): Record<string, unknown> | undefined {
  return value && typeof value === "object" && !Array.isArray(value) ? (value as Record<string, unknown>) : undefined;
}

function clip(text: string): string {
  const line = text.replace(/\s+/g, " ").trim();
  return line.length > 200 ? `${line.slice(0, 200)}…` : line;
}
