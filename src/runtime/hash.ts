import { bun, nodeModule, onBun } from "./host.ts";

/** An incremental SHA-256, for content too large to hold (a release binary) or fed in pieces. */
export type Sha256 = { update(data: string | Uint8Array): Sha256; digestHex(): string };

/**
 * Synchronous, unlike Web Crypto's digest: callers hash on hot paths (a prompt file's fingerprint, an
 * approval token) where an await would ripple through. Bun's hasher on Bun, node:crypto on Deno.
 */
export function createSha256(): Sha256 {
  const hasher: { update(data: string | Uint8Array): unknown; digest(encoding: "hex"): string } = onBun
    ? new (bun().CryptoHasher)("sha256")
    : nodeModule<typeof import("node:crypto")>("node:crypto").createHash("sha256");
  const self: Sha256 = {
    update(data) {
      hasher.update(data);
      return self;
    },
    digestHex: () => hasher.digest("hex"),
  };
  return self;
}

export function sha256Hex(data: string | Uint8Array): string {
  return createSha256().update(data).digestHex();
}
