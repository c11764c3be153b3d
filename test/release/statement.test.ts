import { describe, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { releaseStatement, signRelease, verifyRelease } from "../../src/release/statement.ts";
import { createTrustMaterial } from "../../src/trust/trust-material.ts";
import { makeKeyPair } from "../trust/_fixture.ts";

const CLAIM = { name: "fermix_linux_x86_64", version: "0.2.0", target: "linux-x86_64", sha256: "ab".repeat(32) };
const keys = makeKeyPair();
const trust = createTrustMaterial({ publicKeys: [keys.publicKeyPem] });
const bundle = signRelease(CLAIM, keys.privateKeyPem);

describe("release statements", () => {
  test("the statement is the one line install.sh rebuilds with printf", () => {
    const line = `{"_type":"fermix-release/v1","name":"${CLAIM.name}","version":"${CLAIM.version}","target":"${CLAIM.target}","sha256":"${CLAIM.sha256}"}\n`;
    expect(new TextDecoder().decode(releaseStatement(CLAIM))).toBe(line);
  });

  test("a bundle verifies for exactly the claim it was signed for", async () => {
    await verifyRelease({ claim: CLAIM, bundle, trust });
  });

  test.each([
    ["another target", { target: "linux-arm64" }],
    ["another version", { version: "0.1.0" }],
    ["another digest", { sha256: "cd".repeat(32) }],
    ["another artifact name", { name: "fermix_linux_arm64" }],
  ])("%s is refused", async (_, change) => {
    const attempt = verifyRelease({ claim: { ...CLAIM, ...change }, bundle, trust });
    await expect(attempt).rejects.toMatchObject({ code: "signature_invalid" });
  });

  test("a key the verifier does not trust is refused", async () => {
    const other = makeKeyPair();
    const attempt = verifyRelease({ claim: CLAIM, bundle: signRelease(CLAIM, other.privateKeyPem), trust });
    await expect(attempt).rejects.toThrow(/does not trust/);
  });

  test("the development key's bundle verifies with the development public key", async () => {
    const root = join(import.meta.dir, "..", "..");
    const dev = {
      privateKeyPem: readFileSync(join(root, "catalog/keys/dev-signing-key.pem"), "utf8"),
      publicKeyPem: readFileSync(join(root, "catalog/keys/dev-signing-key.pub.pem"), "utf8"),
    };
    const devTrust = createTrustMaterial({ publicKeys: [dev.publicKeyPem] });
    await verifyRelease({ claim: CLAIM, bundle: signRelease(CLAIM, dev.privateKeyPem), trust: devTrust });
  });
});
