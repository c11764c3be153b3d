import { describe, expect, test } from "bun:test";
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { buildReleaseArtifacts, type ReleaseBuildOptions, renderSummary } from "../../src/release/build-release.ts";
import { parseReleaseManifest } from "../../src/release/manifest.ts";
import { verifyRelease } from "../../src/release/statement.ts";
import { RELEASE_TARGETS } from "../../src/release/targets.ts";
import { createTrustMaterial } from "../../src/trust/trust-material.ts";
import { cleanupAfterEach } from "../fixture/cleanup.ts";
import { makeKeyPair } from "../trust/_fixture.ts";

const ROOT = resolve(import.meta.dir, "..", "..");
const BASE = "https://releases.example.test/fermix";
const keys = { ...makeKeyPair(), release: true };
const defer = cleanupAfterEach();

/** The release step with a stand-in compiler: each "binary" is a few bytes naming its target and version. */
function options(out: string, version: string, over: Partial<ReleaseBuildOptions> = {}): ReleaseBuildOptions {
  return {
    root: ROOT,
    out,
    version,
    baseUrl: BASE,
    targets: RELEASE_TARGETS,
    hostTargetId: undefined,
    keys,
    project: { description: "A test agent.", homepage: "https://example.test" },
    compile: async ({ target, outfile }) => writeFileSync(outfile, `binary ${target.id} ${version}\n`),
    log: () => {},
    now: () => new Date("2026-11-29T12:00:00Z"),
    ...over,
  };
}

function tempOut(): string {
  const dir = mkdtempSync(join(tmpdir(), "fermix-relstep-"));
  defer(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
}

describe("the release step", () => {
  test("writes each target's binary, sum and bundle, and a manifest listing them", async () => {
    const out = tempOut();
    const summary = await buildReleaseArtifacts(options(out, "0.1.0"));
    expect(summary.results.every((r) => r.built)).toBe(true);
    const manifest = parseReleaseManifest(
      JSON.parse(readFileSync(join(out, "releases.json"), "utf8")),
      `${BASE}/releases.json`,
    );
    expect(manifest.latest).toBe("0.1.0");
    const trust = createTrustMaterial({ publicKeys: [keys.publicKeyPem] });
    for (const artifact of manifest.releases[0]!.artifacts) {
      const name = `fermix_${artifact.target.replaceAll("-", "_")}`;
      expect(artifact.url).toBe(`${BASE}/v0.1.0/${name}`);
      expect(artifact.sig_url).toBe(`${BASE}/v0.1.0/${name}.sigstore.json`);
      expect(artifact.cert_url).toBe(`${BASE}/fermix-release.pub.pem`);
      const bytes = readFileSync(join(out, "v0.1.0", name));
      const sha256 = new Bun.CryptoHasher("sha256").update(bytes).digest("hex");
      expect(artifact.sha256).toBe(sha256);
      expect(readFileSync(join(out, "v0.1.0", `${name}.sha256`), "utf8")).toBe(`${sha256}  ${name}\n`);
      const bundle = JSON.parse(readFileSync(join(out, "v0.1.0", `${name}.sigstore.json`), "utf8"));
      await verifyRelease({ claim: { name, version: "0.1.0", target: artifact.target, sha256 }, bundle, trust });
    }
    expect(readFileSync(join(out, "fermix-release.pub.pem"), "utf8").trim()).toBe(keys.publicKeyPem.trim());
    expect(readFileSync(join(out, "install.sh"), "utf8")).toContain(`default_releases_url='${BASE}/releases.json'`);
    expect(summary.warnings).toEqual([]);
  });

  test("a target that does not compile is reported with its reason and left out everywhere", async () => {
    const out = tempOut();
    const lines: string[] = [];
    const summary = await buildReleaseArtifacts(
      options(out, "0.2.0", {
        compile: async ({ target, outfile }) => {
          if (target.id === "darwin-arm64") throw new Error("failed to download bun-darwin-arm64: offline");
          writeFileSync(outfile, `binary ${target.id}\n`);
        },
        log: (line) => lines.push(line),
      }),
    );
    expect(summary.results.find((r) => r.target === "darwin-arm64")).toEqual({
      target: "darwin-arm64",
      name: "fermix_darwin_arm64",
      built: false,
      reason: "failed to download bun-darwin-arm64: offline",
    });
    expect(lines.some((l) => l.startsWith("NOT BUILT darwin-arm64") && l.includes("offline"))).toBe(true);
    const text = renderSummary(
      summary,
      RELEASE_TARGETS.map((t) => t.id),
    ).join("\n");
    expect(text).toContain("5 of 6 targets built");
    expect(text).toMatch(/NOT BUILT\s+darwin-arm64\s+failed to download/);
    expect(text).toContain("omitted (not built): darwin-arm64");
    expect(text).toContain("not a target: Windows");
    expect(readdirSync(join(out, "v0.2.0")).some((f) => f.startsWith("fermix_darwin_arm64"))).toBe(false);
    const manifest = JSON.parse(readFileSync(join(out, "releases.json"), "utf8"));
    expect(manifest.releases[0].artifacts.map((a: { target: string }) => a.target)).not.toContain("darwin-arm64");
    expect(readFileSync(join(out, "fermix.rb"), "utf8")).not.toContain("darwin_arm64");
  });

  test("merges versions into one root; a rebuilt version replaces its folder and entry", async () => {
    const out = tempOut();
    await buildReleaseArtifacts(options(out, "0.1.0"));
    await buildReleaseArtifacts(options(out, "0.2.0"));
    writeFileSync(join(out, "v0.2.0", "stale-file"), "left from an earlier build");
    const linux = RELEASE_TARGETS.filter((t) => t.id === "linux-x86_64");
    await buildReleaseArtifacts(options(out, "0.2.0", { targets: linux }));
    const manifest = JSON.parse(readFileSync(join(out, "releases.json"), "utf8"));
    expect(manifest.latest).toBe("0.2.0");
    expect(manifest.releases.map((r: { version: string }) => r.version)).toEqual(["0.2.0", "0.1.0"]);
    expect(manifest.releases[0].artifacts).toHaveLength(1);
    expect(manifest.releases[1].artifacts).toHaveLength(6);
    expect(readdirSync(join(out, "v0.2.0")).sort()).toEqual([
      "fermix_linux_x86_64",
      "fermix_linux_x86_64.sha256",
      "fermix_linux_x86_64.sigstore.json",
    ]);
    expect(existsSync(join(out, "v0.1.0", "fermix_darwin_arm64"))).toBe(true);
  });

  test("a root built for another base URL is refused before anything is written", async () => {
    const out = tempOut();
    await buildReleaseArtifacts(options(out, "0.1.0"));
    const before = readFileSync(join(out, "releases.json"), "utf8");
    const attempt = buildReleaseArtifacts(options(out, "0.2.0", { baseUrl: "https://elsewhere.example.test" }));
    await expect(attempt).rejects.toThrow(/same --base-url/);
    expect(readFileSync(join(out, "releases.json"), "utf8")).toBe(before);
    expect(existsSync(join(out, "v0.2.0"))).toBe(false);
  });

  test("nothing built leaves the root's manifest alone; the dev key is called out", async () => {
    const out = tempOut();
    const lines: string[] = [];
    const summary = await buildReleaseArtifacts(
      options(out, "0.1.0", {
        keys: { ...keys, release: false },
        compile: async () => {
          throw new Error("no runtime");
        },
        log: (line) => lines.push(line),
      }),
    );
    expect(summary.manifest).toBeUndefined();
    expect(existsSync(join(out, "releases.json"))).toBe(false);
    expect(existsSync(join(out, "v0.1.0"))).toBe(false);
    expect(lines[0]).toMatch(/^!!! signed with the DEVELOPMENT key.*for testing only/);
    expect(renderSummary(summary, []).join("\n")).toContain("left as they were (nothing was built)");
  });

  test("a rebuild of a version where nothing compiles keeps that version's files and entry", async () => {
    const out = tempOut();
    await buildReleaseArtifacts(options(out, "0.1.0"));
    const before = readFileSync(join(out, "releases.json"), "utf8");
    const failing = options(out, "0.1.0", {
      compile: async () => {
        throw new Error("offline");
      },
    });
    const summary = await buildReleaseArtifacts(failing);
    expect(summary.results.every((r) => !r.built)).toBe(true);
    expect(readFileSync(join(out, "releases.json"), "utf8")).toBe(before);
    expect(readdirSync(join(out, "v0.1.0"))).toHaveLength(18);
    expect(readdirSync(out).filter((f) => f.startsWith("."))).toEqual([]);
  });

  test("a latest release with no macOS or glibc build gets no formula, with a warning", async () => {
    const out = tempOut();
    await buildReleaseArtifacts(options(out, "0.1.0"));
    const musl = RELEASE_TARGETS.filter((t) => t.libc === "musl");
    const summary = await buildReleaseArtifacts(options(out, "0.2.0", { targets: musl }));
    expect(existsSync(join(out, "fermix.rb"))).toBe(false);
    expect(summary.warnings).toEqual([expect.stringContaining("fermix.rb not written: release 0.2.0 has no macOS")]);
  });

  test("a version that is not one is refused", async () => {
    await expect(buildReleaseArtifacts(options(tempOut(), "1.2"))).rejects.toThrow(/not a version/);
  });
});
