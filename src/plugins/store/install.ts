import { randomBytes } from "node:crypto";
import { mkdir, readFile, rename } from "node:fs/promises";
import { join } from "node:path";
import { defineError, isFermixError } from "../../error.ts";
import { PluginArchiveInvalid, RUNTIME_FILES } from "../archive/entry-rules.ts";
import { extractPluginArchive } from "../archive/safe-extract.ts";
import { removeTree, streamToFile, symlinkAtomic, writeFileAtomic } from "./store-files.ts";
import {
  checkNameAndVersion,
  fromRecord,
  type InstalledRecord,
  readRecords,
  versionMetaPath,
  writeRecords,
} from "./store-record.ts";
import { exists, type StorePaths } from "./store-repair.ts";

export const PluginChecksumMismatch = defineError<{ expected: string; actual: string }>("plugin_checksum_mismatch");
export const PluginSignatureInvalid = defineError("plugin_signature_invalid");
export const PluginManifestInvalid = defineError<{ errors: { path: string; message: string }[] }>(
  "plugin_manifest_invalid",
);
export const PluginMissingHostRuntime = defineError<{ reason: string }>("plugin_missing_host_runtime");

export type InstallStage =
  | "locked"
  | "downloaded"
  | "verified"
  | "extracted"
  | "validated"
  | "swapped"
  | "linked"
  | "recorded";

export type ValidatedManifest = {
  name: string;
  version: string;
  plugin_api: number;
  min_core_version: string;
  runtime?: unknown;
};

export type InstallInput = {
  name: string;
  version: string;
  artifact: Uint8Array | ReadableStream<Uint8Array>;
  /** Hex sha256 from the catalog. */
  expectedSha256: string;
  /** Throws when the artifact's signature does not verify (src/trust). */
  verifySignature: (bytes: Uint8Array) => Promise<void>;
  /** Full manifest validation of the extracted tree; must check that name and version are the requested ones. */
  validate: (
    dir: string,
  ) => Promise<{ ok: true; manifest: ValidatedManifest } | { ok: false; errors: { path: string; message: string }[] }>;
  probeRuntime?: (dir: string) => Promise<{ ok: true } | { ok: false; status: "missing_host_runtime"; reason: string }>;
  /** Called after each step completes; tests use it to crash the install at a chosen point. */
  onStage?: (stage: InstallStage) => void | Promise<void>;
};

/**
 * The install pipeline, run under the store lock after `repairStore`. Nothing outside staging changes until
 * the input has passed every check; then the tree is renamed into place, `current` flipped, and
 * installed.json renamed over — the commit point (see store-repair.ts for what a crash before it leaves).
 */
export async function runInstall(paths: StorePaths, input: InstallInput, now: () => number): Promise<InstalledRecord> {
  const { name, version } = input;
  const stage = async (s: InstallStage) => {
    await input.onStage?.(s);
  };
  await stage("locked");
  const work = join(paths.staging, randomBytes(8).toString("hex"));
  await mkdir(work, { recursive: true, mode: 0o700 });
  try {
    const artifactPath = join(work, "artifact.tgz");
    const { sha256 } = await streamToFile(input.artifact, artifactPath);
    const expected = input.expectedSha256.toLowerCase();
    if (sha256 !== expected) {
      throw PluginChecksumMismatch(`${name}@${version}: artifact sha256 is ${sha256}, the catalog says ${expected}`, {
        expected,
        actual: sha256,
      });
    }
    await stage("downloaded");

    // Verify and extract the very bytes on disk that were hashed.
    const bytes = new Uint8Array(await readFile(artifactPath));
    try {
      await input.verifySignature(bytes);
    } catch (err) {
      if (isFermixError(err)) throw err;
      throw PluginSignatureInvalid(`${name}@${version}: signature does not verify: ${String(err)}`, {}, { cause: err });
    }
    await stage("verified");

    const tree = join(work, "tree");
    // Runtime files are judged after validation, once the manifest says whether there is a runtime.
    const extracted = await extractPluginArchive(bytes, tree, { allowRuntimeFiles: true });
    await stage("extracted");

    const verdict = await input.validate(tree);
    if (!verdict.ok) {
      const lines = verdict.errors.map((e) => `${e.path || "plugin.json"}: ${e.message}`);
      throw PluginManifestInvalid(`${name}@${version}: invalid plugin manifest:\n  ${lines.join("\n  ")}`, {
        errors: verdict.errors,
      });
    }
    const { manifest } = verdict;
    // validate() checks this too; repeated because a mismatch here would file the tree under the wrong name.
    if (manifest.name !== name || manifest.version !== version) {
      throw PluginManifestInvalid(
        `${name}@${version}: the archive's plugin.json is ${manifest.name}@${manifest.version}, not what was requested`,
        { errors: [{ path: "name", message: `expected ${name}@${version}` }] },
      );
    }
    const runtimeFiles = extracted.files.filter((f) => RUNTIME_FILES.includes(f));
    if (manifest.runtime === undefined && runtimeFiles.length > 0) {
      throw PluginArchiveInvalid(`archive entry "${runtimeFiles[0]}": runtime files need a manifest runtime`, {
        entry: runtimeFiles[0],
        rule: "top_level",
      });
    }
    if (input.probeRuntime) {
      const probe = await input.probeRuntime(tree);
      if (!probe.ok) throw PluginMissingHostRuntime(`${name}@${version}: ${probe.reason}`, { reason: probe.reason });
    }
    await stage("validated");

    const records = await readRecords(paths.record);
    const before = records[name];
    const record: InstalledRecord = {
      name,
      version,
      sha256,
      tree_digest: extracted.treeDigest,
      plugin_api: manifest.plugin_api,
      min_core_version: manifest.min_core_version,
      verified_at: new Date(now()).toISOString(),
      previous: before && before.version !== version ? before.version : before?.previous,
    };
    if (record.previous === undefined) delete record.previous;
    await mkdir(join(paths.installed, name), { recursive: true, mode: 0o755 });
    await writeFileAtomic(versionMetaPath(paths.installed, name, version), `${JSON.stringify(fromRecord(record))}\n`);
    await swapInto(tree, join(paths.installed, name), version);
    await stage("swapped");

    await symlinkAtomic(version, join(paths.installed, name, "current"));
    await stage("linked");

    await writeRecords(paths.record, { ...records, [name]: fromRecord(record) });
    await stage("recorded");
    return record;
  } finally {
    await removeTree(work);
  }
}

/**
 * Moves a verified tree to `<dir>/<version>`. A directory cannot be renamed over a non-empty one, so an
 * existing copy is first renamed aside to `.<version>.replaced`; a crash between the two renames is undone
 * by repairStore (and `current()` reads the aside copy meanwhile).
 */
async function swapInto(tree: string, dir: string, version: string): Promise<void> {
  const target = join(dir, version);
  const aside = join(dir, `.${version}.replaced`);
  if (await exists(target)) {
    await removeTree(aside);
    await rename(target, aside);
  }
  await rename(tree, target);
  await removeTree(aside);
}

export function checkInstallInput(input: InstallInput): void {
  checkNameAndVersion(input.name, input.version);
  if (!/^[0-9a-fA-F]{64}$/.test(input.expectedSha256)) {
    throw PluginChecksumMismatch(`${input.name}@${input.version}: "${input.expectedSha256}" is not a sha256`, {
      expected: input.expectedSha256,
      actual: "",
    });
  }
}
