import { type FermixError, isFermixError } from "../../error.ts";
import type { BearerToken, WireCall, WireDeps } from "../types.ts";
import { fail, WireFailure } from "./_failure.ts";
import { postForEvents, type SseMessage } from "./_transport.ts";

type VendorErrorExtractor = (body: unknown) => { message?: string; code?: string };

export type CredentialStyle = {
  /** How an API key travels: Anthropic's `x-api-key`, everyone else's bearer. */
  apiKeyHeader: "x-api-key" | "authorization";
  /** Headers a signed-in request adds beside the bearer (Codex's account id, Claude Code's identity). */
  oauthHeaders?: (token: BearerToken) => Record<string, string>;
};

/**
 * postForEvents with the route's credential applied. An API key is sent as is. A signed-in profile's
 * token is read per request; a 401 (which always comes before any event) refreshes it once and retries
 * once, and what still fails is an auth failure marked residual, so the router may fail over.
 */
export async function* postWithCredential(
  call: WireCall,
  deps: WireDeps,
  url: string,
  headers: Record<string, string>,
  body: unknown,
  extractError: VendorErrorExtractor,
  style: CredentialStyle,
): AsyncGenerator<SseMessage> {
  const { target } = call;
  const oauth = target.oauth;
  if (!oauth) {
    const keyed = { ...headers };
    if (target.apiKey) {
      if (style.apiKeyHeader === "x-api-key") keyed["x-api-key"] = target.apiKey;
      else keyed.authorization = `Bearer ${target.apiKey}`;
    }
    yield* postForEvents(call, deps, url, keyed, body, extractError);
    return;
  }
  const provider = target.provider;
  let token = await tokenOrFail(provider, oauth.login, () => oauth.tokens.token());
  for (let attempt = 0; ; attempt++) {
    const signed = {
      ...headers,
      authorization: `Bearer ${token.accessToken}`,
      ...style.oauthHeaders?.(token),
    };
    // The token stands in for the key, so postForEvents redacts it from any echoed error text.
    const keyedCall = { ...call, target: { ...target, apiKey: token.accessToken } };
    try {
      yield* postForEvents(keyedCall, deps, url, signed, body, extractError);
      return;
    } catch (err) {
      if (!(err instanceof WireFailure)) throw err;
      const { status } = err.failure;
      if (status === 403 && oauth.forbidden) {
        fail(provider, "auth", oauth.forbidden, { status, vendorCode: err.failure.vendorCode, signedIn: true });
      }
      if (err.failure.class === "auth" && status !== 401) {
        throw new WireFailure({
          ...err.failure,
          message: `${err.failure.message}; if the account changed, sign in again: ${oauth.login}`,
          signedIn: true,
        });
      }
      if (status !== 401) throw err;
      if (attempt > 0) {
        fail(
          provider,
          "auth",
          `${provider} still refused the signed-in token after refreshing it (HTTP 401); sign in again: ${oauth.login}`,
          { status, vendorCode: err.failure.vendorCode, oauthResidual: true, signedIn: true },
        );
      }
      const rejected = token.accessToken;
      token = await tokenOrFail(provider, oauth.login, () => oauth.tokens.refreshAfterUnauthorized(rejected));
    }
  }
}

/** The token store's own sentence (not signed in, reauthorization needed, refresh refused) as an auth failure. */
async function tokenOrFail(provider: string, login: string, get: () => Promise<BearerToken>): Promise<BearerToken> {
  try {
    const token = await get();
    if (!token?.accessToken) throw new Error("the stored sign-in has no access token");
    return token;
  } catch (err) {
    if (err instanceof WireFailure) throw err;
    const reason = err instanceof Error ? err.message : String(err);
    // A busy lock or an unreachable token endpoint says nothing about the sign-in: try again, like any flake.
    if (isFermixError(err) && signInFlake(err)) {
      return fail(provider, "transient", `${provider}: could not renew the sign-in just now: ${reason}`);
    }
    const hint = reason.includes("fermix auth login") ? "" : `; sign in with: ${login}`;
    return fail(provider, "auth", `${provider}: ${reason}${hint}`, { oauthResidual: true, signedIn: true });
  }
}

/** src/auth's codes for failures of the moment rather than of the sign-in (named here, not imported: no cycle). */
function signInFlake(err: FermixError): boolean {
  if (err.code === "auth_busy" || err.code === "auth_token_unreachable") return true;
  const status = (err.data as { status?: unknown } | undefined)?.status;
  return err.code === "auth_token_refused" && typeof status === "number" && status >= 500;
}
