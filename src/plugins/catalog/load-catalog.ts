import { createHash } from "node:crypto";
import { readFile } from "node:fs/promises";
import { join } from "node:path";
import * as v from "valibot";
import { embeddedDir } from "../../embedded/assets.ts";
import { defineError } from "../../error.ts";
import { embeddedTrust } from "../../trust/embedded-keys.ts";
import type { TrustMaterial } from "../../trust/trust-material.ts";
import { SignatureInvalid, verifyArtifact } from "../../trust/verify.ts";
import { type CatalogArtifact, CatalogIndex, type CatalogPlugin, describeIssues } from "./catalog-index.ts";

export const CatalogUnavailable = defineError("catalog_unavailable");
export const CatalogInvalid = defineError("catalog_invalid");
export const CatalogNotFound = defineError("catalog_not_found");

/** A plugin artifact read from the catalog, its sha256 and signature already checked. */
export type CatalogArtifactFile = {
  name: string;
  version: string;
  artifact: CatalogArtifact;
  bytes: Uint8Array;
  sha256: string;
  bundle: unknown;
};

export type Catalog = {
  index: CatalogIndex;
  plugins: CatalogPlugin[];
  find(name: string): CatalogPlugin | undefined;
  /** Reads an embedded artifact (default: the latest version), verifying its sha256 and signature. */
  artifact(name: string, version?: string): Promise<CatalogArtifactFile>;
};

/**
 * Loads the signed plugin catalog. The index is trusted only after its bundle verifies against the keys this
 * build embeds; only then is its shape checked and its contents used.
 */
export async function loadCatalog(opts: { root?: string; trust?: TrustMaterial } = {}): Promise<Catalog> {
  const root = opts.root ?? embeddedDir("catalog");
  const trust = opts.trust ?? embeddedTrust();
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
      const bytes = await readBytes(embeddedPath(root, artifact.url), `the artifact of ${name} ${wanted}`);
      const sha256 = createHash("sha256").update(bytes).digest("hex");
      if (sha256 !== artifact.sha256) {
        throw SignatureInvalid(`the embedded artifact of ${name} ${wanted} does not match the catalog's sha256`, {
          expected: artifact.sha256,
          actual: sha256,
        });
      }
      const artifactBundle = await readJson(embeddedPath(root, artifact.sig_url), `the signature of ${name} ${wanted}`);
      await verifyArtifact({ bytes, bundle: artifactBundle, trust });
      return { name, version: wanted, artifact, bytes, sha256, bundle: artifactBundle };
    },
  };
}

// `embedded:artifacts/x.tgz` is relative to the catalog root; https artifacts are the installer's to download.
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
  const bytes = await readBytes(path, what);
  try {
    return JSON.parse(new TextDecoder().decode(bytes));
  } catch (err) {
    throw SignatureInvalid(`${what} is not valid JSON`, { path }, { cause: err });
  }
}
