import { beforeAll, describe, expect, test } from "bun:test";
import { appendFileSync, copyFileSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { hostTarget } from "../../src/release/targets.ts";
import { cleanupAfterEach } from "../fixture/cleanup.ts";
import { type BuiltRelease, buildRelease } from "../fixture/release.ts";

const defer = cleanupAfterEach();
let release: BuiltRelease;
beforeAll(async () => {
  release = await buildRelease({ versions: ["0.1.0", "0.2.0"] });
}, 60_000);

/** `fermix verify-release` of the built 0.2.0 binary: the check install.sh falls back to without cosign. */
function verify(args: string[]) {
  const bin = release.binary("0.2.0");
  const run = Bun.spawnSync([bin, "verify-release", ...args], { env: { PATH: "/usr/bin:/bin" } });
  return { code: run.exitCode, stdout: run.stdout.toString(), stderr: run.stderr.toString() };
}

const bundleOf = (version: string) => `${release.binary(version)}.sigstore.json`;

describe("fermix verify-release", () => {
  test("verifies a release binary against its bundle, in one line", () => {
    const result = verify([
      "--bundle",
      bundleOf("0.1.0"),
      "--version",
      "0.1.0",
      "--target",
      release.target,
      release.binary("0.1.0"),
    ]);
    expect(result.stderr).toBe("");
    expect(result.code).toBe(0);
    expect(result.stdout).toMatch(
      new RegExp(
        `^verified: ${release.name} 0\\.1\\.0 for ${release.target} \\(sha256 [0-9a-f]{64}\\) is signed by a release key this build trusts\\n$`,
      ),
    );
  });

  test.each([
    ["another version", ["--version", "0.2.0"]],
    ["another target", ["--target", hostTarget()?.id === "linux-arm64" ? "linux-x86_64" : "linux-arm64"]],
    ["another artifact name", ["--name", "fermix_darwin_arm64"]],
  ])("refuses the bundle when asked for %s", (_, change) => {
    const base: Record<string, string> = {
      "--bundle": bundleOf("0.1.0"),
      "--version": "0.1.0",
      "--target": release.target,
    };
    base[change[0]!] = change[1]!;
    const result = verify([...Object.entries(base).flat(), release.binary("0.1.0")]);
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(/^fermix: the signature (was made for different bytes|does not verify)/);
  });

  test("refuses a binary changed after signing", () => {
    const dir = mkdtempSync(join(tmpdir(), "fx-verify-"));
    defer(() => rmSync(dir, { recursive: true, force: true }));
    const copy = join(dir, release.name);
    copyFileSync(release.binary("0.1.0"), copy);
    appendFileSync(copy, "\0");
    const result = verify(["--bundle", bundleOf("0.1.0"), "--version", "0.1.0", "--target", release.target, copy]);
    expect(result.code).toBe(1);
    expect(result.stderr).toContain("fermix: the signature");
  });

  test("says what is wrong with its arguments or files", () => {
    const missing = verify(["--version", "0.1.0", "--target", release.target, release.binary("0.1.0")]);
    expect(missing.code).toBe(2);
    expect(missing.stderr).toContain("usage: fermix verify-release --bundle FILE");
    const target = verify(["--bundle", bundleOf("0.1.0"), "--version", "0.1.0", "--target", "windows-x86_64", "x"]);
    expect(target.code).toBe(2);
    expect(target.stderr).toContain("--target windows-x86_64 is not a release target");
    const dir = mkdtempSync(join(tmpdir(), "fx-verify-"));
    defer(() => rmSync(dir, { recursive: true, force: true }));
    writeFileSync(join(dir, "bundle.json"), "not json");
    const bad = verify([
      "--bundle",
      join(dir, "bundle.json"),
      "--version",
      "0.1.0",
      "--target",
      release.target,
      release.binary("0.1.0"),
    ]);
    expect(bad.code).toBe(1);
    expect(bad.stderr).toContain(`cannot read the signature bundle ${join(dir, "bundle.json")}`);
    const nofile = verify([
      "--bundle",
      bundleOf("0.1.0"),
      "--version",
      "0.1.0",
      "--target",
      release.target,
      join(dir, "nope"),
    ]);
    expect(nofile.code).toBe(1);
    expect(nofile.stderr).toContain(`cannot read ${join(dir, "nope")}`);
  });
});
