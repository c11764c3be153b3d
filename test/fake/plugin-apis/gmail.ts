import { bearer, json, record, type Seen } from "./recorder.ts";

/**
 * A Gmail API fake: messages.list paged by `pageToken` / `nextPageToken`, and Google's error envelope
 * `{error: {code, message, errors: [{reason}], status, details: [{@type, reason}]}}` with a chosen reason.
 */
export function fakeGmail(opts: { token: string; messages: number }) {
  const seen: Seen[] = [];
  const state = { reason: undefined as string | undefined, status: 403, retryAfter: undefined as string | undefined };
  const messages = Array.from({ length: opts.messages }, (_, i) => ({ id: `m${i + 1}`, threadId: `t${i + 1}` }));

  const handler = async (request: Request): Promise<Response> => {
    const req = await record(request, seen);
    if (bearer(req) !== opts.token) {
      return googleError(401, "UNAUTHENTICATED", "Request had invalid authentication credentials.", "authError");
    }
    if (state.reason !== undefined) {
      const headers = state.retryAfter ? { "retry-after": state.retryAfter } : undefined;
      return googleError(state.status, "PERMISSION_DENIED", messageFor(state.reason), state.reason, headers);
    }
    if (req.path === "/gmail/v1/users/me/messages") {
      const max = Number(req.query.get("maxResults") ?? 100);
      const start = Number(req.query.get("pageToken") ?? 0);
      const page = messages.slice(start, start + max);
      const body: Record<string, unknown> = { messages: page, resultSizeEstimate: messages.length };
      if (start + max < messages.length) body.nextPageToken = String(start + max);
      return json(body);
    }
    return googleError(404, "NOT_FOUND", "Requested entity was not found.", "notFound");
  };
  return { handler, seen, state };
}

function messageFor(reason: string): string {
  if (reason === "ACCESS_TOKEN_SCOPE_INSUFFICIENT") return "Request had insufficient authentication scopes.";
  if (reason.endsWith("RateLimitExceeded") || reason === "rateLimitExceeded") return "Rate Limit Exceeded";
  return "The caller does not have permission";
}

/** Google APIs put the v1 reason in `errors[]` and the google.rpc.ErrorInfo reason in `details[]`. */
function googleError(status: number, rpc: string, message: string, reason: string, headers?: Record<string, string>) {
  const scopeReason = reason === "ACCESS_TOKEN_SCOPE_INSUFFICIENT";
  const error = {
    code: status,
    message,
    errors: [{ message, domain: "global", reason: scopeReason ? "insufficientPermissions" : reason }],
    status: rpc,
    ...(scopeReason
      ? {
          details: [
            {
              "@type": "type.googleapis.com/google.rpc.ErrorInfo",
              reason,
              domain: "googleapis.com",
              metadata: { service: "gmail.googleapis.com", method: "caribou.api.proto.MailboxService.ListMessages" },
            },
          ],
        }
      : {}),
  };
  return json({ error }, status, headers);
}
