import { describe, expect, test } from "bun:test";
import { createHash } from "node:crypto";
import { type SigstoreBundle, signArtifact } from "../../src/trust/sign.ts";
import { createTrustMaterial, keyHint } from "../../src/trust/trust-material.ts";
import { type SignerIdentity, verifyArtifact } from "../../src/trust/verify.ts";
import { keyless, keylessBundle, makeKeyPair } from "./_fixture.ts";

const ours = makeKeyPair();
const stranger = makeKeyPair();
const trust = createTrustMaterial({ publicKeys: [ours.publicKeyPem] });
const keylessTrust = createTrustMaterial({ publicKeys: [ours.publicKeyPem], fulcioCaCerts: [keyless.caPem] });
const artifact = new TextEncoder().encode("a plugin tarball, byte for byte");
const other = new TextEncoder().encode("some other file");
const good = signArtifact(artifact, ours.privateKeyPem);
const identity: SignerIdentity = { subjectAlternativeName: keyless.san, issuer: keyless.issuer };

const clone = (b: unknown) => structuredClone(b) as SigstoreBundle;
const flipFirstByte = (bytes: Uint8Array) => bytes.map((b, i) => (i === 0 ? b ^ 1 : b));
const b64sha = (bytes: Uint8Array) => createHash("sha256").update(bytes).digest("base64");

type Case = {
  name: string;
  bytes: Uint8Array;
  bundle: unknown;
  trust?: typeof trust;
  identity?: SignerIdentity;
  reason: RegExp;
};

const refused: Case[] = [
  { name: "tampered artifact", bytes: flipFirstByte(artifact), bundle: good, reason: /made for different bytes/ },
  {
    name: "tampered artifact with the digest field patched to match",
    bytes: flipFirstByte(artifact),
    bundle: (() => {
      const b = clone(good);
      b.messageSignature.messageDigest.digest = b64sha(flipFirstByte(artifact));
      return b;
    })(),
    reason: /does not verify: signature verification failed/,
  },
  {
    name: "bundle from another key",
    bytes: artifact,
    bundle: signArtifact(artifact, stranger.privateKeyPem),
    reason: /signed by a key this build does not trust/,
  },
  {
    name: "bundle from another key carrying our key's hint",
    bytes: artifact,
    bundle: (() => {
      const b = clone(signArtifact(artifact, stranger.privateKeyPem));
      b.verificationMaterial.publicKey.hint = keyHint(ours.publicKeyPem);
      return b;
    })(),
    reason: /does not verify: signature verification failed/,
  },
  {
    name: "bundle for another artifact",
    bytes: artifact,
    bundle: signArtifact(other, ours.privateKeyPem),
    reason: /made for different bytes/,
  },
  {
    name: "digest field not matching the bytes",
    bytes: artifact,
    bundle: (() => {
      const b = clone(good);
      b.messageSignature.messageDigest.digest = b64sha(other);
      return b;
    })(),
    reason: /made for different bytes/,
  },
  {
    name: "old v0.1 media type",
    bytes: artifact,
    bundle: { ...good, mediaType: "application/vnd.dev.sigstore.bundle+json;version=0.1" },
    reason: /only sigstore bundle v0\.3 is accepted/,
  },
  {
    name: "unknown media type",
    bytes: artifact,
    bundle: { ...good, mediaType: "application/json" },
    reason: /media type "application\/json"/,
  },
  { name: "missing media type", bytes: artifact, bundle: { ...good, mediaType: undefined }, reason: /media type null/ },
  { name: "not a bundle at all", bytes: artifact, bundle: null, reason: /media type null/ },
  {
    name: "bundle without a signature",
    bytes: artifact,
    bundle: { ...good, messageSignature: undefined },
    reason: /the signature bundle is malformed/,
  },
  {
    name: "keyless without an identity policy",
    bytes: artifact,
    bundle: keylessBundle(artifact),
    trust: keylessTrust,
    reason: /keyless \(certificate\) signature, and no signer identity is pinned/,
  },
  {
    name: "keyless with a non-matching subject",
    bytes: artifact,
    bundle: keylessBundle(artifact),
    trust: keylessTrust,
    identity: {
      ...identity,
      subjectAlternativeName: "https://github.com/someone-else/x/.github/workflows/r.yml@refs/heads/main",
    },
    reason:
      /signed by https:\/\/github\.com\/fermix-test\/plugins\/.* \(issuer https:\/\/token\.actions\.githubusercontent\.com\), not by https:\/\/github\.com\/someone-else/,
  },
  {
    name: "keyless with a non-matching issuer",
    bytes: artifact,
    bundle: keylessBundle(artifact),
    trust: keylessTrust,
    identity: { ...identity, issuer: "https://accounts.google.com" },
    reason: /not by .* \(issuer https:\/\/accounts\.google\.com\)/,
  },
  {
    name: "keyless when this build trusts no certificate authority",
    bytes: artifact,
    bundle: keylessBundle(artifact),
    identity,
    reason: /this build trusts no certificate authority/,
  },
  {
    // The identity matches, but with no log entry there is no timestamp, so the chain cannot be judged.
    name: "keyless with the right identity but no transparency-log entry",
    bytes: artifact,
    bundle: keylessBundle(artifact),
    trust: keylessTrust,
    identity,
    reason: /does not verify: expected 1 timestamps, got 0/,
  },
];

describe("verifyArtifact", () => {
  test("a good key bundle verifies", async () => {
    await verifyArtifact({ bytes: artifact, bundle: good, trust });
    // …also after a JSON round trip, which is how bundles reach us.
    await verifyArtifact({ bytes: artifact, bundle: JSON.parse(JSON.stringify(good)), trust });
  });

  test("a key bundle verifies against one of several trusted keys", async () => {
    const both = createTrustMaterial({ publicKeys: [stranger.publicKeyPem, ours.publicKeyPem] });
    await verifyArtifact({ bytes: artifact, bundle: good, trust: both });
  });

  test.each(refused)("refuses: $name", async (c) => {
    const err = await verifyArtifact({
      bytes: c.bytes,
      bundle: c.bundle,
      trust: c.trust ?? trust,
      identity: c.identity,
    }).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(err).toMatchObject({ code: "signature_invalid" });
    expect((err as Error).message).toMatch(c.reason);
  });
});
