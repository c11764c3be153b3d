import { createHash, createPrivateKey, generateKeyPairSync, sign, X509Certificate } from "node:crypto";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { BUNDLE_MEDIA_TYPE } from "../../src/trust/sign.ts";

/** A fresh ECDSA P-256 key pair as PEM, like the ones build.ts signs with. */
export function makeKeyPair(): { privateKeyPem: string; publicKeyPem: string } {
  const { privateKey, publicKey } = generateKeyPairSync("ec", { namedCurve: "P-256" });
  return {
    privateKeyPem: privateKey.export({ type: "pkcs8", format: "pem" }).toString(),
    publicKeyPem: publicKey.export({ type: "spki", format: "pem" }).toString(),
  };
}

const dir = join(import.meta.dir, "fixture");

/**
 * A throwaway CA and a Fulcio-shaped leaf (SAN URI + Fulcio issuer v2 extension) made with openssl for these
 * tests; see fixture/README.md. There is no Rekor entry or SCT for it, so it can only show refusals.
 */
export const keyless = {
  caPem: readFileSync(join(dir, "ca.pem"), "utf8"),
  leafPem: readFileSync(join(dir, "leaf.pem"), "utf8"),
  leafKeyPem: readFileSync(join(dir, "leaf.key.pem"), "utf8"),
  san: "https://github.com/fermix-test/plugins/.github/workflows/release.yml@refs/heads/main",
  issuer: "https://token.actions.githubusercontent.com",
};

/** A keyless-style bundle: the leaf certificate instead of a key hint, no log entry, no timestamp. */
export function keylessBundle(bytes: Uint8Array): Record<string, unknown> {
  const signature = sign("sha256", bytes, { key: createPrivateKey(keyless.leafKeyPem), dsaEncoding: "der" });
  return {
    mediaType: BUNDLE_MEDIA_TYPE,
    verificationMaterial: {
      certificate: { rawBytes: new X509Certificate(keyless.leafPem).raw.toString("base64") },
      tlogEntries: [],
      timestampVerificationData: { rfc3161Timestamps: [] },
    },
    messageSignature: {
      messageDigest: { algorithm: "SHA2_256", digest: createHash("sha256").update(bytes).digest("base64") },
      signature: signature.toString("base64"),
    },
  };
}
