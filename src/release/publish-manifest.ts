import type { Release, ReleaseArtifact, ReleaseManifest } from "./manifest.ts";
import { compareVersions, parseVersion } from "./semver.ts";

/**
 * Adds `release` to an existing releases.json (or starts one). A release of the same version is replaced
 * whole, never merged target by target: the files under `v<version>/` are rebuilt together, so the entry
 * always lists exactly what one build produced. Releases are kept newest first.
 */
export function mergeRelease(existing: ReleaseManifest | undefined, release: Release): ReleaseManifest {
  const others = (existing?.releases ?? []).filter((r) => compareVersions(r.version, release.version) !== 0);
  const releases = [...others, release].sort((a, b) => compareVersions(b.version, a.version));
  return { schema_version: 1, latest: latestVersion(releases.map((r) => r.version)), releases };
}

/**
 * The version `latest` names: the highest release, skipping pre-releases unless there is nothing else, so an
 * `0.3.0-rc.1` published for testers is not what a plain install or upgrade picks.
 */
export function latestVersion(versions: string[]): string {
  const stable = versions.filter((v) => parseVersion(v)?.pre.length === 0);
  const pool = stable.length ? stable : versions;
  const [first, ...rest] = pool;
  if (first === undefined) throw new Error("a release manifest needs at least one release");
  return rest.reduce((max, v) => (compareVersions(v, max) > 0 ? v : max), first);
}

/**
 * releases.json as written: valid JSON with `latest` on its own line and each release object on ONE line,
 * keys in a fixed order. install.sh has no JSON parser, so it picks the release's line with awk and the fields
 * out of it with sed; this layout is that contract (test/release/publish-manifest.test.ts holds it).
 */
export function formatManifest(manifest: ReleaseManifest): string {
  const releases = manifest.releases.map((r) => `    ${JSON.stringify(releaseInOrder(r))}`).join(",\n");
  const head = [`  "schema_version": ${manifest.schema_version},`, `  "latest": ${JSON.stringify(manifest.latest)},`];
  return `{\n${head.join("\n")}\n  "releases": [${releases ? `\n${releases}\n  ` : ""}]\n}\n`;
}

function releaseInOrder(r: Release): Release {
  return { version: r.version, published_at: r.published_at, artifacts: r.artifacts.map(artifactInOrder) };
}

function artifactInOrder(a: ReleaseArtifact): ReleaseArtifact {
  return {
    target: a.target,
    url: a.url,
    sha256: a.sha256,
    sig_url: a.sig_url,
    ...(a.cert_url === undefined ? {} : { cert_url: a.cert_url }),
  };
}
