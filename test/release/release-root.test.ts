import { beforeAll, describe, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { installScriptDefaultUrl } from "../../src/release/install-script.ts";
import { parseReleaseManifest, pickArtifact, type ReleaseManifest } from "../../src/release/manifest.ts";
import { verifyRelease } from "../../src/release/statement.ts";
import { createTrustMaterial } from "../../src/trust/trust-material.ts";
import { type BuiltRelease, buildRelease, FIXTURE_BASE_URL } from "../fixture/release.ts";

const ROOT = resolve(import.meta.dir, "..", "..");
const DEV_PUBLIC_KEY = readFileSync(join(ROOT, "catalog/keys/dev-signing-key.pub.pem"), "utf8");
const sha256 = (path: string) => new Bun.CryptoHasher("sha256").update(readFileSync(path)).digest("hex");

let release: BuiltRelease;
let manifest: ReleaseManifest;
beforeAll(async () => {
  release = await buildRelease({ versions: ["0.1.0", "0.2.0"] });
  const text = readFileSync(join(release.root, "releases.json"), "utf8");
  manifest = parseReleaseManifest(JSON.parse(text), `${FIXTURE_BASE_URL}/releases.json`);
}, 60_000);

/** `bun build.ts --release --target <host>` twice into one root (FERMIX_VERSION 0.1.0, then 0.2.0). */
describe("a release root built twice", () => {
  test("releases.json lists both versions, latest 0.2.0, with this host's build", () => {
    expect(manifest.latest).toBe("0.2.0");
    expect(manifest.releases.map((r) => r.version)).toEqual(["0.2.0", "0.1.0"]);
    for (const version of ["0.1.0", "0.2.0"]) {
      const { artifact } = pickArtifact(manifest, release.target, version);
      expect(artifact.url).toBe(`${FIXTURE_BASE_URL}/v${version}/${release.name}`);
    }
  });

  test("each binary's sum is in its .sha256 file and the manifest, and its bundle verifies as what it is", async () => {
    const trust = createTrustMaterial({ publicKeys: [DEV_PUBLIC_KEY] });
    for (const version of ["0.1.0", "0.2.0"]) {
      const file = release.binary(version);
      const sum = sha256(file);
      expect(readFileSync(`${file}.sha256`, "utf8")).toBe(`${sum}  ${release.name}\n`);
      expect(pickArtifact(manifest, release.target, version).artifact.sha256).toBe(sum);
      const bundle = JSON.parse(readFileSync(`${file}.sigstore.json`, "utf8"));
      const claim = { name: release.name, version, target: release.target, sha256: sum };
      await verifyRelease({ claim, bundle, trust });
      const other = version === "0.1.0" ? "0.2.0" : "0.1.0";
      await expect(verifyRelease({ claim: { ...claim, version: other }, bundle, trust })).rejects.toThrow();
    }
  });

  test("each binary prints its own version", () => {
    for (const version of ["0.1.0", "0.2.0"]) {
      const run = Bun.spawnSync([release.binary(version), "--version"], { env: { PATH: "/usr/bin:/bin" } });
      expect(run.stdout.toString()).toBe(`${version}\n`);
    }
  });

  test("install.sh pins the release key and defaults to the root's manifest", () => {
    const script = readFileSync(join(release.root, "install.sh"), "utf8");
    const pub = readFileSync(join(release.root, "fermix-release.pub.pem"), "utf8");
    expect(pub.trim()).toBe(DEV_PUBLIC_KEY.trim());
    expect(script).toContain(`cat <<'PEM'\n${pub.trim()}\nPEM\n`);
    expect(installScriptDefaultUrl(script)).toBe(`${FIXTURE_BASE_URL}/releases.json`);
  });

  test("fermix.rb carries 0.2.0's real sum for this host (when Homebrew has such a platform)", () => {
    const formula = readFileSync(join(release.root, "fermix.rb"), "utf8");
    expect(formula).toContain('version "0.2.0"');
    if (!release.target.endsWith("musl")) {
      expect(formula).toContain(`url "${FIXTURE_BASE_URL}/v0.2.0/${release.name}"`);
      expect(formula).toContain(`sha256 "${sha256(release.binary("0.2.0"))}"`);
      expect(formula).not.toContain(sha256(release.binary("0.1.0")));
    }
    if (Bun.which("ruby")) {
      const check = Bun.spawnSync(["ruby", "-c", join(release.root, "fermix.rb")]);
      expect(check.stdout.toString()).toBe("Syntax OK\n");
    }
  });
});

describe("build.ts refuses", () => {
  const run = (args: string[], env: Record<string, string> = {}) =>
    Bun.spawnSync([process.execPath, "build.ts", ...args], { cwd: ROOT, env: { ...process.env, ...env } });

  test("a FERMIX_VERSION that is not a version", () => {
    const result = run(["--release", "--out", "/nonexistent/never-written"], { FERMIX_VERSION: "one" });
    expect(result.exitCode).toBe(1);
    expect(result.stderr.toString()).toContain("FERMIX_VERSION=one is not a version");
  });

  test("an unknown --target, naming the known ones; and release flags without --release", () => {
    const result = run(["--release", "--target", "windows-x86_64", "--out", "/nonexistent/never-written"]);
    expect(result.exitCode).toBe(1);
    expect(result.stderr.toString()).toContain("unknown --target windows-x86_64 (known: linux-x86_64,");
    const plain = run(["--out", "/tmp/x"]);
    expect(plain.exitCode).toBe(1);
    expect(plain.stderr.toString()).toContain("need --release");
  });
});
