import { createHash, createPublicKey, X509Certificate } from "node:crypto";
import { type TrustMaterial as SigstoreTrustMaterial, toTrustMaterial } from "@sigstore/verify";

/**
 * What a verification may rely on. `hints` are the sigstore key hints (base64 sha256 of the DER SPKI) of the
 * public keys we trust; `keyless` says whether a certificate authority was given at all, so keyless bundles
 * can be refused with a plain reason instead of a chain error.
 */
export type TrustMaterial = {
  hints: ReadonlySet<string>;
  keyless: boolean;
  sigstore: SigstoreTrustMaterial;
};

export type TrustMaterialInput = {
  /** PEM public keys (ECDSA P-256) whose key-signed bundles we accept. */
  publicKeys: string[];
  /** PEM certificates of the Fulcio CA chain(s) for keyless bundles: root first or alone. */
  fulcioCaCerts?: string[];
  /** PEM public keys of the transparency log (Rekor) keyless bundles must be logged in. */
  rekorKeys?: string[];
  /** PEM public keys of the certificate transparency logs that countersign Fulcio certificates. */
  ctlogKeys?: string[];
};

// The protobuf enum names @sigstore/verify understands for the key types this build uses.
const P256 = "PKIX_ECDSA_P256_SHA_256";

type TrustedRoot = Parameters<typeof toTrustMaterial>[0];
type PublicKeys = Exclude<Parameters<typeof toTrustMaterial>[1], undefined | ((...args: never[]) => unknown)>;

/** The DER SubjectPublicKeyInfo of a PEM public key (or of the public half of a PEM private key). */
export function spkiDer(pem: string): Buffer {
  return createPublicKey(pem).export({ type: "spki", format: "der" });
}

/** The sigstore key hint: base64 of the sha256 of the DER SPKI. */
export function keyHint(pem: string): string {
  return createHash("sha256").update(spkiDer(pem)).digest("base64");
}

export function createTrustMaterial(input: TrustMaterialInput): TrustMaterial {
  const keys: PublicKeys = {};
  for (const pem of input.publicKeys) {
    keys[keyHint(pem)] = { rawBytes: spkiDer(pem), keyDetails: P256 as never };
  }
  const cas = input.fulcioCaCerts ?? [];
  const root = {
    mediaType: "application/vnd.dev.sigstore.trustedroot+json;version=0.1",
    certificateAuthorities: cas.map((pem, i) => ({
      subject: undefined,
      uri: `embedded:fulcio-${i}`,
      certChain: { certificates: [{ rawBytes: new X509Certificate(pem).raw }] },
      validFor: undefined,
    })),
    timestampAuthorities: [],
    tlogs: (input.rekorKeys ?? []).map((pem) => logInstance(pem, "rekor")),
    ctlogs: (input.ctlogKeys ?? []).map((pem) => logInstance(pem, "ctlog")),
  } as unknown as TrustedRoot;
  return { hints: new Set(Object.keys(keys)), keyless: cas.length > 0, sigstore: toTrustMaterial(root, keys) };
}

// A log is identified by the sha256 of its key's DER SPKI (RFC 6962 log ID, also what Rekor uses).
function logInstance(pem: string, kind: string) {
  const der = spkiDer(pem);
  return {
    baseUrl: `embedded:${kind}`,
    hashAlgorithm: "SHA2_256",
    publicKey: { rawBytes: der, keyDetails: P256, validFor: undefined },
    logId: { keyId: createHash("sha256").update(der).digest() },
    checkpointKeyId: undefined,
  };
}
