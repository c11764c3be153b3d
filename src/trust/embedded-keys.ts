import { readFileSync } from "node:fs";
import { join } from "node:path";
import { embeddedDir, sourceRoot } from "../embedded/assets.ts";
import { createTrustMaterial, type TrustMaterial } from "./trust-material.ts";

/**
 * Where the build records the public keys its binary trusts. build.ts's catalog step writes it beside the
 * signed index, so it is embedded with catalog/: a release build lists only the release key there, and the
 * development key (committed in catalog/keys/) is then not trusted by that binary.
 */
export const TRUSTED_KEYS_FILE = "trusted-keys.json";
export const DEV_PUBLIC_KEY_FILE = "catalog/keys/dev-signing-key.pub.pem";

export type TrustedKeysFile = { public_keys: string[] };

/**
 * The PEM public keys this build trusts. Running from source without a built catalog (tests, `bun src/main.ts`)
 * falls back to the development key; a compiled binary never does, since its build always wrote the file.
 */
export function trustedPublicKeys(catalogDir = embeddedDir("catalog")): string[] {
  let text: string | undefined;
  try {
    text = readFileSync(join(catalogDir, TRUSTED_KEYS_FILE), "utf8");
  } catch (err) {
    const checkout = sourceRoot();
    if (!checkout) throw err;
    return [readFileSync(join(checkout, DEV_PUBLIC_KEY_FILE), "utf8")];
  }
  const parsed = JSON.parse(text) as TrustedKeysFile;
  return parsed.public_keys;
}

let cached: TrustMaterial | undefined;

/** The trust material for catalog and artifact signatures, built once per process. */
export function embeddedTrust(): TrustMaterial {
  cached ??= createTrustMaterial({ publicKeys: trustedPublicKeys() });
  return cached;
}
