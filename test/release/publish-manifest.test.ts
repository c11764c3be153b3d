import { describe, expect, test } from "bun:test";
import { parseReleaseManifest, type Release } from "../../src/release/manifest.ts";
import { formatManifest, latestVersion, mergeRelease } from "../../src/release/publish-manifest.ts";

const BASE = "https://get.fermix.dev";

function release(version: string, targets = ["linux-x86_64", "darwin-arm64"]): Release {
  return {
    version,
    published_at: "2026-11-29T12:00:00.000Z",
    artifacts: targets.map((target) => {
      const name = `fermix_${target.replaceAll("-", "_")}`;
      return {
        target,
        url: `${BASE}/v${version}/${name}`,
        sha256: (version + target).padEnd(64, "0").replace(/[^0-9a-f]/g, "a"),
        sig_url: `${BASE}/v${version}/${name}.sigstore.json`,
        cert_url: `${BASE}/fermix-release.pub.pem`,
      };
    }),
  };
}

describe("mergeRelease", () => {
  test("starts a manifest, then keeps earlier releases newest first with latest = the highest", () => {
    const one = mergeRelease(undefined, release("0.1.0"));
    expect(one).toEqual({ schema_version: 1, latest: "0.1.0", releases: [release("0.1.0")] });
    const two = mergeRelease(one, release("0.2.0"));
    expect(two.latest).toBe("0.2.0");
    expect(two.releases.map((r) => r.version)).toEqual(["0.2.0", "0.1.0"]);
    // A backport built after a newer release does not move latest.
    const three = mergeRelease(two, release("0.1.1"));
    expect(three.latest).toBe("0.2.0");
    expect(three.releases.map((r) => r.version)).toEqual(["0.2.0", "0.1.1", "0.1.0"]);
  });

  test("a rebuilt version replaces its entry whole", () => {
    const first = mergeRelease(mergeRelease(undefined, release("0.1.0")), release("0.2.0"));
    const rebuilt = mergeRelease(first, release("0.2.0", ["linux-arm64"]));
    expect(rebuilt.releases.map((r) => r.version)).toEqual(["0.2.0", "0.1.0"]);
    expect(rebuilt.releases[0]!.artifacts.map((a) => a.target)).toEqual(["linux-arm64"]);
  });

  test("a pre-release is latest only while there is nothing else", () => {
    expect(latestVersion(["0.3.0-rc.1"])).toBe("0.3.0-rc.1");
    expect(latestVersion(["0.2.0", "0.3.0-rc.1", "0.1.0"])).toBe("0.2.0");
    expect(latestVersion(["0.3.0-rc.1", "0.3.0-rc.2"])).toBe("0.3.0-rc.2");
    expect(latestVersion(["0.10.0", "0.9.0"])).toBe("0.10.0");
  });
});

describe("formatManifest", () => {
  const manifest = mergeRelease(mergeRelease(undefined, release("0.1.0")), release("0.2.0"));
  const text = formatManifest(manifest);

  test("round-trips through parseReleaseManifest", () => {
    expect(parseReleaseManifest(JSON.parse(text), `${BASE}/releases.json`)).toEqual(manifest);
  });

  test("puts latest on its own line and each release object on one line, as install.sh reads it", () => {
    const lines = text.split("\n");
    expect(lines).toContain('  "latest": "0.2.0",');
    const releaseLines = lines.filter((l) => l.includes('{"version":'));
    expect(releaseLines).toHaveLength(2);
    for (const [i, r] of manifest.releases.entries()) {
      const line = releaseLines[i]!.trim().replace(/,$/, "");
      expect(line.startsWith(`{"version":"${r.version}","published_at":`)).toBe(true);
      expect(JSON.parse(line)).toEqual(r);
      // install.sh splits a line at each artifact and expects the fields in this order.
      expect(line).toContain('{"target":"linux-x86_64","url":"');
      expect(line).toMatch(/"url":"[^"]+","sha256":"[0-9a-f]{64}","sig_url":"[^"]+","cert_url":"[^"]+"}/);
    }
  });

  test("an empty release list stays valid JSON", () => {
    expect(JSON.parse(formatManifest({ schema_version: 1, latest: "0.1.0", releases: [] }))).toEqual({
      schema_version: 1,
      latest: "0.1.0",
      releases: [],
    });
  });
});
