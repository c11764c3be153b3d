import { mkdirSync, writeFileSync } from "node:fs";
import { type FermixPaths, fermixPaths } from "../../src/config/paths.ts";
import { startFakeProviderOAuth } from "../fake/provider-oauth.ts";
import type { cleanupAfterEach } from "../fixture/cleanup.ts";
import { tempHome } from "../fixture/home.ts";

/** A temp FERMIX_HOME, the fake authorization servers, and an env pointing fermix at them. */
export function authFixture(defer: ReturnType<typeof cleanupAfterEach>) {
  const home = tempHome();
  defer(() => home[Symbol.asyncDispose]());
  mkdirSync(home.home, { recursive: true, mode: 0o700 });
  const fake = startFakeProviderOAuth();
  defer(() => fake.close());
  const paths: FermixPaths = fermixPaths(home.home);
  const env = { FERMIX_TEST_OAUTH_BASE_URL: fake.base, HOME: home.userHome };
  const writeAuth = (value: unknown) => writeFileSync(paths.auth, JSON.stringify(value, null, 2), { mode: 0o600 });
  return { home, fake, paths, env, writeAuth };
}

export const inSeconds = (s: number) => new Date(Date.now() + s * 1000).toISOString();
