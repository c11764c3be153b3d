import { createHash } from "node:crypto";
import { readFile } from "node:fs/promises";
import { join } from "node:path";
import * as v from "valibot";
import { defineError } from "../../error.ts";
import type { GuardedFetch } from "../../net/types.ts";
import type { TrustMaterial } from "../../trust/trust-material.ts";
import { SignatureInvalid, verifyArtifact } from "../../trust/verify.ts";
import type { Catalog } from "./catalog-contract.ts";
import { CatalogIndex, describeIssues } from "./catalog-index.ts";

export const CatalogUnavailable = defineError("catalog_unavailable");
export const CatalogInvalid = defineError("catalog_invalid");
export const CatalogNotFound = defineError("catalog_not_found");

/** Large artifacts (native helpers) may live at an https origin; they are fetched through the outbound door. */
const MAX_REMOTE_ARTIFACT_BYTES = 200 * 1024 * 1024;
const MAX_REMOTE_BUNDLE_BYTES = 1024 * 1024;

/**
 * Reads the signed plugin catalog at `root`. The index is trusted only after its bundle verifies against `trust`;
 * only then is its shape checked and its contents used. Apart from load-catalog.ts so build-step.ts can prove
 * what it wrote without importing what builds it.
 */
export async function readCatalog(opts: { root: string; trust: TrustMaterial; net?: GuardedFetch }): Promise<Catalog> {
  const { root, trust } = opts;
  const indexBytes = await readBytes(join(root, "index.json"), "the plugin catalog index");
  const bundle = await readJson(join(root, "index.json.sigstore.json"), "the plugin catalog signature");
  try {
    await verifyArtifact({ bytes: indexBytes, bundle, trust });
  } catch (err) {
    if (!SignatureInvalid.is(err)) throw err;
    throw SignatureInvalid(`the embedded plugin catalog failed its signature check: ${err.message}`, err.data, {
      cause: err,
    });
  }

  const parsed = v.safeParse(CatalogIndex, JSON.parse(new TextDecoder().decode(indexBytes)));
  if (!parsed.success) throw CatalogInvalid(`the plugin catalog index is malformed: ${describeIssues(parsed.issues)}`);
  const index = parsed.output;
  const find = (name: string) => index.plugins.find((p) => p.name === name);

  return {
    index,
    plugins: index.plugins,
    find,
    async artifact(name, version) {
      const plugin = find(name);
      if (!plugin) throw CatalogNotFound(`the catalog has no plugin named ${name}`, { name });
      const wanted = version ?? plugin.latest;
      const entry = plugin.versions.find((ver) => ver.version === wanted);
      if (!entry) throw CatalogNotFound(`the catalog has no version ${wanted} of ${name}`, { name, version: wanted });
      const artifact = entry.artifacts.find((a) => a.target === "any") ?? entry.artifacts[0]!;
      const fetchBytes = (url: string, what: string, maxBytes: number) =>
        url.startsWith("https:") ? download(url, what, maxBytes, opts.net) : readBytes(embeddedPath(root, url), what);
      const bytes = await fetchBytes(artifact.url, `the artifact of ${name} ${wanted}`, MAX_REMOTE_ARTIFACT_BYTES);
      const sha256 = createHash("sha256").update(bytes).digest("hex");
      if (sha256 !== artifact.sha256) {
        throw SignatureInvalid(`the artifact of ${name} ${wanted} does not match the catalog's sha256`, {
          expected: artifact.sha256,
          actual: sha256,
        });
      }
      const bundleBytes = await fetchBytes(
        artifact.sig_url,
        `the signature of ${name} ${wanted}`,
        MAX_REMOTE_BUNDLE_BYTES,
      );
      const artifactBundle = parseJson(bundleBytes, `the signature of ${name} ${wanted}`);
      await verifyArtifact({ bytes, bundle: artifactBundle, trust });
      return { name, version: wanted, artifact, bytes, sha256, bundle: artifactBundle };
    },
  };
}

// `embedded:artifacts/x.tgz` is relative to the catalog root.
function embeddedPath(root: string, url: string): string {
  if (!url.startsWith("embedded:")) {
    throw CatalogUnavailable(`${url} is not embedded in this binary; it has to be downloaded`, { url });
  }
  const rel = url.slice("embedded:".length);
  if (rel.startsWith("/") || rel.split("/").some((seg) => seg === ".." || seg === "")) {
    throw CatalogInvalid(`the catalog names an embedded path outside the catalog: ${url}`, { url });
  }
  return join(root, rel);
}

async function readBytes(path: string, what: string): Promise<Uint8Array> {
  try {
    return new Uint8Array(await readFile(path));
  } catch (err) {
    throw CatalogUnavailable(`${what} is missing (${path})`, { path }, { cause: err });
  }
}

async function readJson(path: string, what: string): Promise<unknown> {
  return parseJson(await readBytes(path, what), what);
}

function parseJson(bytes: Uint8Array, what: string): unknown {
  try {
    return JSON.parse(new TextDecoder().decode(bytes));
  } catch (err) {
    throw SignatureInvalid(`${what} is not valid JSON`, {}, { cause: err });
  }
}

/**
 * An https artifact, through the SSRF-guarded door (public addresses only, pinned connection, no
 * redirects followed blindly); the caller still checks its sha256 and signature like an embedded one.
 */
async function download(url: string, what: string, maxBytes: number, net?: GuardedFetch): Promise<Uint8Array> {
  const door = net ?? (await import("../../net/guarded-fetch.ts")).createGuardedFetch();
  const response = await door(url, { maxBytes, maxRedirects: 3, timeoutMs: 120_000 }).catch((err: unknown) => {
    throw CatalogUnavailable(
      `${what} could not be downloaded from ${url}: ${(err as Error).message}`,
      { url },
      { cause: err },
    );
  });
  if (response.status !== 200)
    throw CatalogUnavailable(`${what} could not be downloaded: ${url} answered HTTP ${response.status}`, { url });
  if (response.truncated) throw CatalogUnavailable(`${what} at ${url} is larger than ${maxBytes} bytes`, { url });
  return response.body;
}
