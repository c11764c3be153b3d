import * as v from "valibot";
import { defineError } from "../error.ts";
import { deepestIssue } from "../valibot-issues.ts";
import { compareVersions, isVersion } from "./semver.ts";

/** The release location could not be used: unreachable, not JSON, the wrong shape, or pointing elsewhere. */
export const ReleaseManifestInvalid = defineError("release_manifest_invalid");
/** The manifest has no build of the wanted version for this machine. */
export const ReleaseNotFound = defineError("release_not_found");

const Sha256Hex = v.pipe(v.string(), v.regex(/^[0-9a-f]{64}$/, "must be a lowercase hex sha256"));
const Url = v.pipe(v.string(), v.url("must be an absolute URL"));
const Version = v.pipe(v.string(), v.check(isVersion, "must be a version like 0.2.0"));

export const ReleaseArtifact = v.object({
  target: v.pipe(v.string(), v.minLength(1)),
  url: Url,
  sha256: Sha256Hex,
  /** The sigstore bundle (v0.3) over the release statement (see statement.ts). */
  sig_url: Url,
  /** The reference's certificate slot; our releases are key-signed, so it names the public key's PEM. */
  cert_url: v.optional(Url),
});
export type ReleaseArtifact = v.InferOutput<typeof ReleaseArtifact>;

export const Release = v.object({
  version: Version,
  published_at: v.pipe(v.string(), v.isoTimestamp("must be an ISO 8601 timestamp")),
  artifacts: v.array(ReleaseArtifact),
});
export type Release = v.InferOutput<typeof Release>;

/** `releases.json`, the format of the earlier implementation. */
export const ReleaseManifest = v.object({
  schema_version: v.literal(1),
  latest: Version,
  releases: v.array(Release),
});
export type ReleaseManifest = v.InferOutput<typeof ReleaseManifest>;

/**
 * Parses releases.json fetched from `manifestUrl`. Every artifact URL must stay on the manifest's own origin:
 * a manifest that points downloads elsewhere is refused whole, not filtered.
 */
export function parseReleaseManifest(json: unknown, manifestUrl: string): ReleaseManifest {
  const parsed = v.safeParse(ReleaseManifest, json);
  if (!parsed.success) {
    const issue = deepestIssue(parsed.issues[0]);
    const where = issue.path?.map((p) => p.key).join(".") || "(top level)";
    throw ReleaseManifestInvalid(`releases.json at ${manifestUrl} is not valid: ${where}: ${issue.message}`, {
      url: manifestUrl,
      field: where,
    });
  }
  const origin = new URL(manifestUrl).origin;
  for (const release of parsed.output.releases) {
    for (const artifact of release.artifacts) {
      for (const url of [artifact.url, artifact.sig_url, artifact.cert_url]) {
        if (url && new URL(url).origin !== origin) {
          throw ReleaseManifestInvalid(
            `releases.json at ${manifestUrl} points ${release.version} ${artifact.target} at ${new URL(url).origin}, outside the release origin ${origin}; refusing it`,
            { url: manifestUrl, artifact: url },
          );
        }
      }
    }
  }
  return parsed.output;
}

/** The build of `version` (default: the manifest's latest) for `target`, or `release_not_found` naming what exists. */
export function pickArtifact(
  manifest: ReleaseManifest,
  target: string,
  version: string = manifest.latest,
): { release: Release; artifact: ReleaseArtifact } {
  const release = manifest.releases.find((r) => compareVersions(r.version, version) === 0);
  if (!release) {
    const known = manifest.releases.map((r) => r.version).join(", ") || "none";
    throw ReleaseNotFound(`there is no release ${version} (published: ${known})`, { version });
  }
  const artifact = release.artifacts.find((a) => a.target === target);
  if (!artifact) {
    const targets = release.artifacts.map((a) => a.target).join(", ") || "none";
    throw ReleaseNotFound(`release ${version} has no build for ${target} (it has: ${targets})`, { version, target });
  }
  return { release, artifact };
}
