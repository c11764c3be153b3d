import { createHash, createPrivateKey, sign } from "node:crypto";
import { keyHint } from "./trust-material.ts";

export const BUNDLE_MEDIA_TYPE = "application/vnd.dev.sigstore.bundle.v0.3+json";

/** The JSON shape of a key-signed sigstore bundle v0.3, as written next to each signed file. */
export type SigstoreBundle = {
  mediaType: typeof BUNDLE_MEDIA_TYPE;
  verificationMaterial: {
    publicKey: { hint: string };
    tlogEntries: [];
    timestampVerificationData: { rfc3161Timestamps: [] };
  };
  messageSignature: {
    messageDigest: { algorithm: "SHA2_256"; digest: string };
    signature: string;
  };
};

/**
 * Signs bytes with an ECDSA P-256 private key (PEM) at build time. No transparency log and no timestamp:
 * trust comes only from the public key embedded in the binary, so the bundle carries just the key hint.
 */
export function signArtifact(bytes: Uint8Array, privateKeyPem: string): SigstoreBundle {
  const key = createPrivateKey(privateKeyPem);
  if (key.asymmetricKeyType !== "ec" || key.asymmetricKeyDetails?.namedCurve !== "prime256v1") {
    throw new Error("the signing key must be an ECDSA P-256 private key");
  }
  // sigstore expects a DER-encoded (not IEEE P1363) ECDSA signature over the artifact itself.
  const signature = sign("sha256", bytes, { key, dsaEncoding: "der" });
  return {
    mediaType: BUNDLE_MEDIA_TYPE,
    verificationMaterial: {
      publicKey: { hint: keyHint(privateKeyPem) },
      tlogEntries: [],
      timestampVerificationData: { rfc3161Timestamps: [] },
    },
    messageSignature: {
      messageDigest: { algorithm: "SHA2_256", digest: createHash("sha256").update(bytes).digest("base64") },
      signature: signature.toString("base64"),
    },
  };
}
