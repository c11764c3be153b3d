import { type Answer, type ProbeOptions, type ProbeResult, type ProbeTarget, probeContext } from "./_probe-context.ts";
import type { ProviderDescriptor } from "./descriptors.ts";
import type { BearerToken, OAuthTarget } from "./types.ts";

/**
 * A provider reached through a subscription sign-in: the token comes from the profile (refreshed when due,
 * exactly as a turn gets it), then the model list is asked with it. The Codex backend has no unbilled
 * listing call, so for Codex a usable token is the whole check. A refused token is a sign-in problem,
 * never a key problem, and the fix says how to sign in again.
 */
export async function probeSignedIn(
  d: ProviderDescriptor,
  target: ProbeTarget & { oauth: OAuthTarget },
  opts: ProbeOptions,
): Promise<ProbeResult> {
  const { oauth } = target;
  const bare = probeContext(d, { ...target, apiKey: undefined }, opts);
  let token: BearerToken;
  try {
    token = await oauth.tokens.token();
  } catch (err) {
    const reason = err instanceof Error ? err.message : String(err);
    return bare.result("fail", `signed-in token unavailable: ${reason}`, `sign in again: ${oauth.login}`);
  }
  const until = token.expiresAt ? ` (token valid until ${new Date(token.expiresAt).toISOString()})` : "";
  if (d.id === "openai_codex") return bare.result("ok", `signed in${until}; the model is checked on the first turn`);

  const listPath = d.wire === "anthropic" ? "/v1/models?limit=1000" : "/models";
  const ask = (t: BearerToken): Promise<Answer> => {
    const headers: Record<string, string> = {
      ...(target.headers ?? d.headers),
      authorization: `Bearer ${t.accessToken}`,
    };
    if (d.wire === "anthropic") {
      headers["anthropic-version"] = "2023-06-01";
      headers["anthropic-beta"] = "oauth-2025-04-20";
    }
    const ctx = probeContext(d, { ...target, apiKey: undefined, headers }, opts);
    return ctx.call(`${ctx.base}${listPath}`);
  };
  let answer = await ask(token);
  if (answer.ok && answer.status === 401) {
    try {
      token = await oauth.tokens.refreshAfterUnauthorized(token.accessToken);
    } catch (err) {
      const reason = err instanceof Error ? err.message : String(err);
      return bare.result(
        "fail",
        `the signed-in token was refused and could not be renewed: ${reason}`,
        `sign in again: ${oauth.login}`,
        {
          httpStatus: 401,
        },
      );
    }
    answer = await ask(token);
  }
  if (!answer.ok) return bare.unreachable(answer.reason);
  if (answer.status === 403 && oauth.forbidden)
    return bare.result("fail", oauth.forbidden, undefined, { httpStatus: 403 });
  if (answer.status === 401 || answer.status === 403) {
    return bare.result(
      "fail",
      `the signed-in token was refused (HTTP ${answer.status})`,
      `sign in again: ${oauth.login}`,
      {
        httpStatus: answer.status,
      },
    );
  }
  if (answer.status !== 200) return bare.fromHttp(answer.status, listPath.replace(/\?.*/, ""), false);
  return bare.result("ok", `signed in${until}, models listed`);
}
