import { describe, expect, test } from "bun:test";
import { parseReleaseManifest, pickArtifact } from "../../src/release/manifest.ts";

const URL_ = "https://get.example.dev/releases.json";
const artifact = (target: string, version = "0.2.0") => ({
  target,
  url: `https://get.example.dev/v${version}/fermix_${target.replaceAll("-", "_")}`,
  sha256: "a".repeat(64),
  sig_url: `https://get.example.dev/v${version}/fermix_${target.replaceAll("-", "_")}.sigstore.json`,
});
const manifest = () => ({
  schema_version: 1,
  latest: "0.2.0",
  releases: [
    { version: "0.1.0", published_at: "2026-11-01T00:00:00Z", artifacts: [artifact("linux-x86_64", "0.1.0")] },
    {
      version: "0.2.0",
      published_at: "2026-11-20T00:00:00Z",
      artifacts: [artifact("linux-x86_64"), artifact("darwin-arm64")],
    },
  ],
});

describe("releases.json", () => {
  test("picks the latest, or a named version, for a target", () => {
    const m = parseReleaseManifest(manifest(), URL_);
    expect(pickArtifact(m, "darwin-arm64").artifact.url).toEndWith("/v0.2.0/fermix_darwin_arm64");
    expect(pickArtifact(m, "linux-x86_64", "0.1.0").release.version).toBe("0.1.0");
  });

  test("says what exists when the version or the target does not", () => {
    const m = parseReleaseManifest(manifest(), URL_);
    expect(() => pickArtifact(m, "linux-x86_64", "0.3.0")).toThrow(
      "there is no release 0.3.0 (published: 0.1.0, 0.2.0)",
    );
    expect(() => pickArtifact(m, "linux-arm64")).toThrow(
      "release 0.2.0 has no build for linux-arm64 (it has: linux-x86_64, darwin-arm64)",
    );
  });

  test("a malformed field is named with its path", () => {
    const bad = manifest();
    (bad.releases[1]!.artifacts[0] as any).sha256 = "XYZ";
    expect(() => parseReleaseManifest(bad, URL_)).toThrow(
      `releases.json at ${URL_} is not valid: releases.1.artifacts.0.sha256: must be a lowercase hex sha256`,
    );
    expect(() => parseReleaseManifest({ ...manifest(), schema_version: 2 }, URL_)).toThrow("schema_version");
  });

  test("an artifact or signature off the manifest's origin is refused outright", () => {
    for (const field of ["url", "sig_url"] as const) {
      const bad = manifest();
      bad.releases[0]!.artifacts[0]![field] = "https://evil.example/fermix";
      expect(() => parseReleaseManifest(bad, URL_)).toThrow(
        "points 0.1.0 linux-x86_64 at https://evil.example, outside the release origin https://get.example.dev; refusing it",
      );
    }
    const port = manifest();
    port.releases[0]!.artifacts[0]!.url = "https://get.example.dev:8443/fermix";
    expect(() => parseReleaseManifest(port, URL_)).toThrow("outside the release origin");
  });
});
