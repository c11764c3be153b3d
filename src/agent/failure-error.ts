import { defineError, type FermixError } from "../error.ts";
import { findProvider } from "../providers/descriptors.ts";
import { setupHint } from "../providers/routes.ts";
import type { ProviderFailure } from "../providers/types.ts";

export const ProviderAuth = defineError("provider_auth");
export const ProviderRateLimited = defineError("provider_rate_limit");
export const ProviderUnavailable = defineError("provider_unavailable");
export const ContextTooLong = defineError("context_length");
export const ProviderRejected = defineError("provider_request");
export const TurnCancelled = defineError("cancelled");
export const TurnTimedOut = defineError("timeout");

/** Turns the router's final failure into the sentence a person reads, with what to do next. */
export function failureToError(failure: ProviderFailure, now: number, opts: { afterOutput: boolean }): FermixError {
  const d = findProvider(failure.provider);
  const label = d?.label ?? failure.provider;
  const data = {
    provider: failure.provider,
    status: failure.status,
    class: failure.class,
    vendor_code: failure.vendorCode,
  };
  switch (failure.class) {
    case "auth":
      // A sign-in's own sentence (not signed in, reconnect needed, a Grok plan without API access) says it all.
      if (failure.signedIn) return ProviderAuth(failure.message, data);
      return ProviderAuth(
        `${label} rejected the API key${failure.status ? ` (HTTP ${failure.status})` : ""}; ${d ? setupHint(d) : "check its api_key"}`,
        data,
      );
    case "rate_limit": {
      if (failure.retryAt && failure.retryAt > now) {
        const minutes = Math.max(1, Math.ceil((failure.retryAt - now) / 60_000));
        return ProviderRateLimited(`usage limit — try again in ~${minutes} min (${label})`, {
          ...data,
          retry_at: failure.retryAt,
        });
      }
      return ProviderRateLimited(`${label} usage limit reached — try again later`, data);
    }
    case "context_length":
      return ContextTooLong(`${failure.message}; start a new session (--session) or shorten the input`, data);
    case "invalid_request":
      return ProviderRejected(failure.message, data);
    case "cancelled":
      return TurnCancelled("the request was cancelled", data);
    case "transient":
      return ProviderUnavailable(
        opts.afterOutput
          ? `the answer was cut off: ${failure.message}; nothing was saved — try again`
          : failure.message,
        data,
      );
  }
}
