import type { Env } from "../../config/env.ts";
import type { GuardedFetch } from "../../net/types.ts";
import type { Manifest } from "../manifest/schema.ts";
import { fakeOAuthEndpoints } from "./fake-endpoints.ts";

/** How long a sign-in waits to learn the account's name before it reports the connection without one. */
const LOOKUP_TIMEOUT_MS = 10_000;

/**
 * The connected account's name from the plugin's own health check (`health_check.account_path`, e.g. GitHub's
 * `GET /user` → `login`), for providers whose token response does not say who signed in. Best effort: any
 * failure — no health check, a refused call, an odd answer, the network — is `undefined`, and the connection
 * stands without a name. The token goes only to the manifest's https host, through the guarded door.
 */
export async function lookupAccount(input: {
  manifest: Pick<Manifest, "auth" | "health_check">;
  accessToken: string;
  net: GuardedFetch;
}): Promise<string | undefined> {
  const check = input.manifest.health_check;
  const auth = input.manifest.auth;
  if (!check?.account_path || auth.type !== "oauth2" || !check.url.startsWith("https://")) return undefined;
  try {
    const headers: Record<string, string> = { accept: "application/json", ...(check.headers ?? {}) };
    for (const key of Object.keys(headers)) if (key.toLowerCase() === "authorization") delete headers[key];
    headers.authorization = `${auth.scheme ?? "Bearer"} ${input.accessToken}`;
    const response = await input.net(check.url, {
      method: check.method ?? "GET",
      headers,
      maxBytes: 256 * 1024,
      maxRedirects: 0,
      timeoutMs: LOOKUP_TIMEOUT_MS,
    });
    if (!(check.success ?? [200]).includes(response.status)) return undefined;
    const value = at(JSON.parse(new TextDecoder().decode(response.body)), check.account_path);
    const name = typeof value === "string" ? value.trim() : typeof value === "number" ? String(value) : undefined;
    // A name to show in a list, not a document: anything long or multi-line is not one.
    return name && name.length <= 200 && !/[\r\n\t]/.test(name) ? name : undefined;
  } catch {
    return undefined;
  }
}

function at(value: unknown, path: string): unknown {
  let node = value;
  for (const part of path.split(".")) {
    if (!node || typeof node !== "object" || Array.isArray(node)) return undefined;
    node = (node as Record<string, unknown>)[part];
  }
  return node;
}

/**
 * `AuthCliDeps.accountOf` over the plugins fermix knows: each one's manifest, the guarded door built on first use.
 * Not while a test points the provider at a fake (FERMIX_TEST_OAUTH_<PROVIDER>): its token means nothing to the
 * real API, and a test must not reach past loopback.
 */
export function accountLookup(
  manifestFor: (plugin: string) => Pick<Manifest, "auth" | "health_check"> | undefined,
  door: () => Promise<GuardedFetch>,
  env: Env,
): (plugin: string, accessToken: string) => Promise<string | undefined> {
  return async (plugin, accessToken) => {
    const manifest = manifestFor(plugin);
    if (manifest?.auth.type !== "oauth2" || fakeOAuthEndpoints(env, manifest.auth.provider)) return undefined;
    return lookupAccount({ manifest, accessToken, net: await door() });
  };
}
