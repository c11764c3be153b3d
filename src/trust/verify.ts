import { createHash, timingSafeEqual } from "node:crypto";
import { BUNDLE_V03_LEGACY_MEDIA_TYPE, BUNDLE_V03_MEDIA_TYPE, type Bundle, bundleFromJSON } from "@sigstore/bundle";
import { type SignedEntity, toSignedEntity, Verifier } from "@sigstore/verify";
import { defineError } from "../error.ts";
import type { TrustMaterial } from "./trust-material.ts";

export const SignatureInvalid = defineError("signature_invalid");

/** Who must have signed a keyless (Fulcio certificate) bundle; both compared exactly. */
export type SignerIdentity = { subjectAlternativeName: string; issuer: string };

// Only v0.3 bundles: older versions carry inclusion promises and chains we never produce or accept.
const ALLOWED_MEDIA_TYPES: readonly string[] = [BUNDLE_V03_MEDIA_TYPE, BUNDLE_V03_LEGACY_MEDIA_TYPE];

const OID_FULCIO_ISSUER_V1 = "1.3.6.1.4.1.57264.1.1";
const OID_FULCIO_ISSUER_V2 = "1.3.6.1.4.1.57264.1.8";

/**
 * Verifies a sigstore bundle over `bytes` in-process, or throws `signature_invalid` saying why.
 *
 * Key-signed bundles must name a key in `trust`. Keyless bundles are accepted only with an `identity`
 * (exact SAN and OIDC issuer), a transparency-log entry, an SCT and a trusted Fulcio CA.
 */
export async function verifyArtifact(input: {
  bytes: Uint8Array;
  bundle: unknown;
  trust: TrustMaterial;
  identity?: SignerIdentity;
}): Promise<void> {
  const bundle = parseBundle(input.bundle);
  if (bundle.content.$case !== "messageSignature") {
    throw SignatureInvalid("the signature bundle signs an attestation envelope, not the file itself");
  }
  const { messageDigest } = bundle.content.messageSignature;
  // @sigstore/verify skips this comparison when there is no tlog entry, so it is ours to make.
  const actual = createHash("sha256").update(input.bytes).digest();
  const claimed = Buffer.from(messageDigest.digest);
  if (claimed.length !== actual.length || !timingSafeEqual(claimed, actual)) {
    throw SignatureInvalid("the signature was made for different bytes: the file's sha256 does not match the bundle");
  }

  const entity = toEntity(bundle, input.bytes);
  if (entity.key.$case === "public-key") {
    if (!input.trust.hints.has(entity.key.hint)) {
      throw SignatureInvalid("the file is signed by a key this build does not trust", { hint: entity.key.hint });
    }
    // No log, no timestamps, no certificate: the embedded public key is the whole of the trust.
    runVerify(entity, undefined, input.trust, { tlogThreshold: 0, ctlogThreshold: 0, timestampThreshold: 0 });
    return;
  }

  const { identity } = input;
  if (!identity) {
    throw SignatureInvalid("the file has a keyless (certificate) signature, and no signer identity is pinned for it");
  }
  if (!input.trust.keyless) {
    throw SignatureInvalid(
      "the file has a keyless (certificate) signature, and this build trusts no certificate authority",
    );
  }
  const cert = entity.key.certificate;
  const san = cert.subjectAltName;
  const issuer = certIssuer(cert);
  // Checked before the chain so a wrong signer reads as such; the library checks the same policy again below.
  if (san !== identity.subjectAlternativeName || issuer !== identity.issuer) {
    throw SignatureInvalid(
      `the file is signed by ${san ?? "an unnamed signer"} (issuer ${issuer ?? "unknown"}), ` +
        `not by ${identity.subjectAlternativeName} (issuer ${identity.issuer})`,
      { subjectAlternativeName: san, issuer },
    );
  }
  // At least one timestamp is essential: with none, @sigstore/verify 4.1 never walks the certificate chain.
  runVerify(
    entity,
    { subjectAlternativeName: identity.subjectAlternativeName, extensions: { issuer: identity.issuer } },
    input.trust,
    { tlogThreshold: 1, ctlogThreshold: 1, timestampThreshold: 1 },
  );
}

function parseBundle(json: unknown): Bundle {
  const mediaType = (json as { mediaType?: unknown } | null)?.mediaType;
  if (typeof mediaType !== "string" || !ALLOWED_MEDIA_TYPES.includes(mediaType)) {
    throw SignatureInvalid(
      `the signature bundle has media type ${JSON.stringify(mediaType ?? null)}; only sigstore bundle v0.3 is accepted`,
    );
  }
  try {
    return bundleFromJSON(json);
  } catch (err) {
    throw SignatureInvalid(`the signature bundle is malformed: ${reason(err)}`, {}, { cause: err });
  }
}

function toEntity(bundle: Bundle, bytes: Uint8Array): SignedEntity {
  try {
    return toSignedEntity(bundle, Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength));
  } catch (err) {
    throw SignatureInvalid(`the signature bundle is malformed: ${reason(err)}`, {}, { cause: err });
  }
}

function runVerify(
  entity: SignedEntity,
  policy: Parameters<Verifier["verify"]>[1],
  trust: TrustMaterial,
  options: ConstructorParameters<typeof Verifier>[1],
): void {
  try {
    new Verifier(trust.sigstore, options).verify(entity, policy);
  } catch (err) {
    throw SignatureInvalid(`the signature does not verify: ${reason(err)}`, {}, { cause: err });
  }
}

function certIssuer(cert: Extract<SignedEntity["key"], { $case: "certificate" }>["certificate"]): string | undefined {
  // Fulcio writes the OIDC issuer as a DER UTF8String (v2) and, in older certificates, as raw text (v1).
  const v2 = cert.extension(OID_FULCIO_ISSUER_V2);
  if (v2) return v2.valueObj.subs[0]?.value.toString("utf8");
  return cert.extension(OID_FULCIO_ISSUER_V1)?.value.toString("utf8");
}

function reason(err: unknown): string {
  const code = (err as { code?: unknown }).code;
  const message = err instanceof Error ? err.message : String(err);
  return typeof code === "string" && !message.includes(code) ? `${message} (${code})` : message;
}
