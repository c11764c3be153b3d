import { type SigstoreBundle, signArtifact } from "../trust/sign.ts";
import type { TrustMaterial } from "../trust/trust-material.ts";
import { verifyArtifact } from "../trust/verify.ts";

/**
 * What a release signature vouches for. The bundle signs this statement, not the bare binary, so a validly
 * signed build is only accepted as the name, version and target it was signed as: another target's binary,
 * or an older release re-listed as a newer one, no longer matches the statement the verifier rebuilds.
 */
export type ReleaseClaim = {
  /** `fermix_linux_x86_64` */
  name: string;
  version: string;
  /** `linux-x86_64` */
  target: string;
  /** Lowercase hex sha256 of the binary. */
  sha256: string;
};

export const STATEMENT_TYPE = "fermix-release/v1";

/**
 * The exact bytes that are signed: one line of JSON with keys in this order and a trailing newline. install.sh
 * rebuilds the same line with printf for cosign, so the format must stay this plain.
 */
export function releaseStatement(claim: ReleaseClaim): Uint8Array {
  const line = `{"_type":"${STATEMENT_TYPE}","name":${JSON.stringify(claim.name)},"version":${JSON.stringify(claim.version)},"target":${JSON.stringify(claim.target)},"sha256":"${claim.sha256}"}\n`;
  return new TextEncoder().encode(line);
}

export function signRelease(claim: ReleaseClaim, privateKeyPem: string): SigstoreBundle {
  return signArtifact(releaseStatement(claim), privateKeyPem);
}

/**
 * Verifies `bundle` against the statement rebuilt from what the caller expects (the version it asked for, its
 * own target) and the sha256 it computed itself. Throws `signature_invalid` saying why.
 */
export async function verifyRelease(input: {
  claim: ReleaseClaim;
  bundle: unknown;
  trust: TrustMaterial;
}): Promise<void> {
  await verifyArtifact({ bytes: releaseStatement(input.claim), bundle: input.bundle, trust: input.trust });
}
