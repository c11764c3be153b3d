import { readFileSync } from "node:fs";
import { writeFile } from "node:fs/promises";
import { join } from "node:path";
import { EMBEDDED } from "../../embedded/assets.ts";
import { DEV_PUBLIC_KEY_FILE, TRUSTED_KEYS_FILE, type TrustedKeysFile } from "../../trust/embedded-keys.ts";
import { createTrustMaterial, keyHint } from "../../trust/trust-material.ts";
import { buildCatalog } from "./build-catalog.ts";
import { readCatalog } from "./read-catalog.ts";

const DEV_PRIVATE_KEY_FILE = "catalog/keys/dev-signing-key.pem";

/**
 * build.ts's catalog step: signs catalog/plugins into dist/embed/catalog (embedded as catalog/) and records the one
 * public key the binary will trust. A release build passes FERMIX_SIGNING_KEY and FERMIX_SIGNING_PUBLIC_KEY;
 * otherwise the committed development key signs, and only development binaries trust it.
 */
export async function runCatalogStep(opts: { root: string; env: Record<string, string | undefined> }) {
  const { privateKeyPem, publicKeyPem, release } = signingKeys(opts.root, opts.env);
  const outDir = join(opts.root, EMBEDDED.catalog);
  const index = await buildCatalog({ sourceDir: join(opts.root, "catalog", "plugins"), outDir, privateKeyPem });
  const trusted: TrustedKeysFile = { public_keys: [publicKeyPem] };
  await writeFile(join(outDir, TRUSTED_KEYS_FILE), `${JSON.stringify(trusted, null, 2)}\n`);
  // Prove the binary will accept what we just wrote before embedding it.
  await readCatalog({ root: outDir, trust: createTrustMaterial({ publicKeys: [publicKeyPem] }) });
  return { release, keyHint: keyHint(publicKeyPem), plugins: index.plugins.length };
}

function signingKeys(root: string, env: Record<string, string | undefined>) {
  const devPublic = readFileSync(join(root, DEV_PUBLIC_KEY_FILE), "utf8");
  const privateKeyPem = env.FERMIX_SIGNING_KEY;
  const publicKeyPem = env.FERMIX_SIGNING_PUBLIC_KEY;
  if (!privateKeyPem && !publicKeyPem) {
    return {
      privateKeyPem: readFileSync(join(root, DEV_PRIVATE_KEY_FILE), "utf8"),
      publicKeyPem: devPublic,
      release: false,
    };
  }
  if (!privateKeyPem || !publicKeyPem) {
    throw new Error("a release build needs both FERMIX_SIGNING_KEY and FERMIX_SIGNING_PUBLIC_KEY");
  }
  if (keyHint(privateKeyPem) !== keyHint(publicKeyPem)) {
    throw new Error("FERMIX_SIGNING_PUBLIC_KEY is not the public half of FERMIX_SIGNING_KEY");
  }
  if (keyHint(publicKeyPem) === keyHint(devPublic)) {
    throw new Error("FERMIX_SIGNING_KEY is the development key, which has no authority for a release");
  }
  return { privateKeyPem, publicKeyPem, release: true };
}
