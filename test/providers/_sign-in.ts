/**
 * Signed-in routes for wire tests: the app's own route resolution with an in-memory token source in place
 * of auth.json, so a test sees exactly the target a turn would get and scripts what a refresh hands out.
 */
import { resolveRoutes } from "../../src/providers/routes.ts";
import type { BearerSource, BearerToken, WireTarget } from "../../src/providers/types.ts";

export type MemoryTokens = BearerSource & {
  /** The rejected tokens each refresh was asked about, in order. */
  refreshes: string[];
  /** How many times a token was asked for. */
  reads: number;
};

/** `next`: what successive refreshes return; a refresh with nothing left throws `refusal` (the store's sentence). */
export function memoryTokens(
  first: string,
  opts: { next?: string[]; accountId?: string; refusal?: string; missing?: string } = {},
): MemoryTokens {
  let current = first;
  const next = [...(opts.next ?? [])];
  const token = (): BearerToken => ({ accessToken: current, ...(opts.accountId ? { accountId: opts.accountId } : {}) });
  const tokens: MemoryTokens = {
    refreshes: [],
    reads: 0,
    async token() {
      tokens.reads++;
      if (opts.missing) throw new Error(opts.missing);
      return token();
    },
    async refreshAfterUnauthorized(rejected) {
      tokens.refreshes.push(rejected);
      const fresh = next.shift();
      if (fresh === undefined) throw new Error(opts.refusal ?? "Reconnect needed: the refresh was refused");
      current = fresh;
      return token();
    },
  };
  return tokens;
}

/** The app's target for `provider` from a config block, its sign-in served by `tokens`. */
export function signedInTarget(
  provider: string,
  block: Record<string, unknown>,
  tokens: BearerSource,
  receiveTimeoutMs = 10_000,
): WireTarget {
  const config = { fermix_core: { providers: { [provider]: block } } };
  const [route] = resolveRoutes(
    config as never,
    {},
    { env: {}, secretsDir: "/nonexistent", tokenSource: () => tokens },
  );
  return { ...route!.target, receiveTimeoutMs };
}

/** A ChatGPT-shaped access token: a JWT whose auth claim carries the account id. */
export function chatgptJwt(accountId: string): string {
  const part = (o: unknown) => Buffer.from(JSON.stringify(o)).toString("base64url");
  const claims = { "https://api.openai.com/auth": { chatgpt_account_id: accountId }, exp: 4_102_444_800 };
  return `${part({ alg: "RS256", typ: "JWT" })}.${part(claims)}.c2lnbmF0dXJl`;
}
