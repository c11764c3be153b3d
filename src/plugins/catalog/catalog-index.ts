import * as v from "valibot";

const Sha256Hex = v.pipe(v.string(), v.regex(/^[0-9a-f]{64}$/, "must be a lowercase hex sha256"));
// Artifacts ship inside the binary (`embedded:`) or, when large, from an https origin; nothing else.
const ArtifactUrl = v.pipe(
  v.string(),
  v.regex(/^(embedded:[A-Za-z0-9._/-]+|https:\/\/\S+)$/, "must be embedded: or https:"),
);

export const CatalogArtifact = v.object({
  target: v.string(),
  url: ArtifactUrl,
  sha256: Sha256Hex,
  sig_url: ArtifactUrl,
  // Key-signed artifacts have no certificate; keyless ones would name theirs here.
  cert_url: v.nullable(ArtifactUrl),
});
export type CatalogArtifact = v.InferOutput<typeof CatalogArtifact>;

export const CatalogVersion = v.object({
  version: v.string(),
  published_at: v.string(),
  min_core_version: v.nullable(v.string()),
  plugin_api: v.nullable(v.number()),
  artifacts: v.pipe(v.array(CatalogArtifact), v.minLength(1, "needs at least one artifact")),
});
export type CatalogVersion = v.InferOutput<typeof CatalogVersion>;

export const CatalogPlugin = v.object({
  name: v.string(),
  display_name: v.string(),
  category: v.nullable(v.string()),
  description: v.string(),
  short_description: v.nullable(v.string()),
  developer_name: v.nullable(v.string()),
  brand_color: v.nullable(v.string()),
  logo: v.nullable(v.string()),
  auth_type: v.string(),
  auth_provider: v.nullable(v.string()),
  rails: v.array(v.string()),
  runtime_kind: v.optional(v.string()),
  latest: v.string(),
  yanked: v.array(v.string()),
  versions: v.pipe(v.array(CatalogVersion), v.minLength(1, "needs at least one version")),
});
export type CatalogPlugin = v.InferOutput<typeof CatalogPlugin>;

export const CatalogIndex = v.object({
  schema_version: v.literal(1),
  generated_at: v.string(),
  plugins: v.array(CatalogPlugin),
});
export type CatalogIndex = v.InferOutput<typeof CatalogIndex>;

/** Renders valibot issues for people: `plugins.0.versions.0.artifacts.0.sha256: must be a lowercase hex sha256`. */
export function describeIssues(issues: readonly v.BaseIssue<unknown>[]): string {
  return issues
    .slice(0, 3)
    .map((issue) => `${v.getDotPath(issue) ?? "index"}: ${issue.message}`)
    .join("; ");
}
