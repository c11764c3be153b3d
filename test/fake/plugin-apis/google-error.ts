import { json } from "./recorder.ts";

/**
 * Google's JSON error envelope as the v3 REST APIs (Calendar, Drive) send it: `{error: {code, message, errors:
 * [{domain, reason, message}], status}}`, plus a google.rpc.ErrorInfo in `details` when a scope is missing.
 */
export type GoogleErrorOptions = {
  domain?: string;
  status?: string;
  location?: string;
  headers?: Record<string, string>;
  details?: unknown[];
};

export function googleError(code: number, reason: string, message: string, opts: GoogleErrorOptions = {}): Response {
  const item: Record<string, string> = { message, domain: opts.domain ?? "global", reason };
  if (opts.location) Object.assign(item, { location: opts.location, locationType: "parameter" });
  const error: Record<string, unknown> = { code, message, errors: [item] };
  if (opts.status) error.status = opts.status;
  if (opts.details) error.details = opts.details;
  return json({ error }, code, opts.headers);
}

/** The answer to a missing or expired OAuth token. */
export function googleUnauthenticated(): Response {
  const message =
    "Request had invalid authentication credentials. Expected OAuth 2 access token, login cookie or other valid " +
    "authentication credential.";
  const error = {
    code: 401,
    message,
    errors: [
      {
        message: "Invalid Credentials",
        domain: "global",
        reason: "authError",
        location: "Authorization",
        locationType: "header",
      },
    ],
    status: "UNAUTHENTICATED",
  };
  return json({ error }, 401, { "www-authenticate": 'Bearer realm="https://accounts.google.com/"' });
}

/** The answer when the token lacks the method's scope: the v1 reason in `errors`, the rpc reason in `details`. */
export function googleScopeInsufficient(service: string, method: string): Response {
  const details = [
    {
      "@type": "type.googleapis.com/google.rpc.ErrorInfo",
      reason: "ACCESS_TOKEN_SCOPE_INSUFFICIENT",
      domain: "googleapis.com",
      metadata: { service, method },
    },
  ];
  return googleError(403, "insufficientPermissions", "Request had insufficient authentication scopes.", {
    status: "PERMISSION_DENIED",
    details,
  });
}

/** Google's per-user rate limit; the usageLimits domain is what marks it. */
export function googleRateLimited(retryAfter?: string): Response {
  const headers = retryAfter ? { "retry-after": retryAfter } : undefined;
  return googleError(429, "rateLimitExceeded", "Rate Limit Exceeded", {
    domain: "usageLimits",
    status: "RESOURCE_EXHAUSTED",
    headers,
  });
}

/** Google page tokens are opaque; the fakes hide an offset inside one so tests cannot lean on its form. */
export function pageToken(offset: number): string {
  return Buffer.from(`offset:${offset}`).toString("base64url");
}

export function offsetOf(token: string | null): number {
  if (!token) return 0;
  const m = /^offset:(\d+)$/.exec(Buffer.from(token, "base64url").toString());
  return m ? Number(m[1]) : -1;
}
