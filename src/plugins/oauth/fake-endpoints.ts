import type { Env } from "../../config/env.ts";
import { testLoopbackOrigin } from "../../net/test-origin.ts";
import type { OAuthEndpoints } from "./providers.ts";

/**
 * A test's fake authorization server for a provider, from `FERMIX_TEST_OAUTH_<PROVIDER>=http://127.0.0.1:PORT`
 * (its /authorize and /token), so a compiled binary can be driven against test/fake/oauth-provider.ts. Only a
 * loopback http origin is taken: the client secret and codes sent to it never leave the machine, so a variable
 * slipped into a shell profile cannot send them anywhere else (the reason providers.ts takes no env otherwise).
 */
export function fakeOAuthEndpoints(env: Env, provider: string): Partial<OAuthEndpoints> | undefined {
  const origin = testLoopbackOrigin(env[`FERMIX_TEST_OAUTH_${provider.toUpperCase()}`]);
  return origin ? { authorizeUrl: `${origin}/authorize`, tokenUrl: `${origin}/token` } : undefined;
}
