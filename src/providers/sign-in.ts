import { dirname } from "node:path";
import { fermixPaths } from "../config/paths.ts";
import type { SecretDeps } from "../config/secrets.ts";
import type { ProviderBlock } from "../config/sections/providers.ts";
import { defineError } from "../error.ts";
import type { ProviderDescriptor } from "./descriptors.ts";
import type { BearerSource, BearerToken, OAuthTarget } from "./types.ts";

export type SignInProfile = NonNullable<ProviderDescriptor["oauth"]>["profile"];

/** Where a profile's tokens come from; tests and the doctor hand in their own, the app reads auth.json. */
export type TokenSourceFactory = (profile: SignInProfile) => BearerSource;

const SignInUnsupported = defineError<{ provider: string }>("provider_setup");

/**
 * The signed-in credential a route uses instead of a key: always for Codex (a ChatGPT plan has no key),
 * and for Anthropic and xAI when their block says auth_mode = "oauth" (a stored token is inert until then).
 */
export function signInOf(
  d: ProviderDescriptor,
  block: ProviderBlock,
  secrets: SecretDeps & { tokenSource?: TokenSourceFactory },
): OAuthTarget | undefined {
  const onlyOAuth = d.authModes.length === 1 && d.authModes[0] === "oauth";
  if (!onlyOAuth && block.auth_mode !== "oauth") return undefined;
  if (!d.oauth) {
    throw SignInUnsupported(
      `${d.label} has no subscription sign-in; set auth_mode = "api_key" in [fermix_core.providers.${d.id}]`,
      { provider: d.id },
    );
  }
  const { profile, login, forbidden } = d.oauth;
  const tokens = secrets.tokenSource?.(profile) ?? authJsonTokens(secrets.secretsDir, profile);
  return { tokens, login, ...(forbidden ? { forbidden } : {}) };
}

/**
 * The profile in FERMIX_HOME's auth.json (the secrets folder's parent). src/auth loads on the first call,
 * so a run that never uses a signed-in provider never reads auth.json.
 */
function authJsonTokens(secretsDir: string, profile: SignInProfile): BearerSource {
  let source: Promise<BearerSource> | undefined;
  const load = () =>
    (source ??= import("../auth/token-source.ts").then(({ createProfileTokenSource }) =>
      createProfileTokenSource({ paths: fermixPaths(dirname(secretsDir)) }, profile),
    ));
  return {
    token: async (): Promise<BearerToken> => (await load()).token(),
    refreshAfterUnauthorized: async (rejected: string): Promise<BearerToken> =>
      (await load()).refreshAfterUnauthorized(rejected),
  };
}
