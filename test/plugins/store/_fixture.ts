import { createHash } from "node:crypto";
import { lstatSync, readdirSync, readFileSync, readlinkSync } from "node:fs";
import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { fermixPaths } from "../../../src/config/paths.ts";
import type { InstallInput } from "../../../src/plugins/store/install.ts";
import { pluginEntries, type TarEntry, tgz } from "../archive/_tarball.ts";

export type Artifact = { bytes: Uint8Array; sha256: string };

export async function pluginArtifact(name: string, version: string, extra: TarEntry[] = []): Promise<Artifact> {
  return withSha(await tgz(pluginEntries(name, version, extra)));
}

export function withSha(bytes: Uint8Array): Artifact {
  return { bytes, sha256: createHash("sha256").update(bytes).digest("hex") };
}

/**
 * Stands in for the manifest validator (src/plugins/manifest/): reads plugin.json and checks the fields the
 * store relies on, including that name and version are the requested ones.
 */
export function stubValidate(name: string, version: string): InstallInput["validate"] {
  return async (dir) => {
    let manifest: Record<string, unknown>;
    try {
      manifest = JSON.parse(await readFile(join(dir, "plugin.json"), "utf8"));
    } catch (err) {
      return { ok: false, errors: [{ path: "plugin.json", message: `unreadable: ${String(err)}` }] };
    }
    const errors: { path: string; message: string }[] = [];
    if (manifest.name !== name) errors.push({ path: "name", message: `is "${manifest.name}", expected "${name}"` });
    if (manifest.version !== version) {
      errors.push({ path: "version", message: `is "${manifest.version}", expected "${version}"` });
    }
    if (errors.length) return { ok: false, errors };
    return {
      ok: true,
      manifest: {
        name,
        version,
        plugin_api: Number(manifest.plugin_api),
        min_core_version: String(manifest.min_core_version),
        ...(manifest.runtime === undefined ? {} : { runtime: manifest.runtime }),
      },
    };
  };
}

/** Stands in for src/trust: the artifact must be one the test "signed". */
export function stubVerifier(signed: Set<string>): InstallInput["verifySignature"] {
  return async (bytes) => {
    const sha = createHash("sha256").update(bytes).digest("hex");
    if (!signed.has(sha)) throw new Error("no valid signature for this artifact");
  };
}

export function installInput(name: string, version: string, artifact: Artifact, signed?: Set<string>): InstallInput {
  const trusted = signed ?? new Set([artifact.sha256]);
  return {
    name,
    version,
    artifact: artifact.bytes,
    expectedSha256: artifact.sha256,
    verifySignature: stubVerifier(trusted),
    validate: stubValidate(name, version),
  };
}

/** Every path under `root` with its kind, mode and content digest or link target: a byte-for-byte picture. */
export function snapshot(root: string): Record<string, string> {
  const out: Record<string, string> = {};
  const walk = (rel: string) => {
    for (const entry of readdirSync(join(root, rel)).sort()) {
      const path = rel ? `${rel}/${entry}` : entry;
      const abs = join(root, path);
      const st = lstatSync(abs);
      const mode = (st.mode & 0o7777).toString(8);
      if (st.isSymbolicLink()) out[path] = `link ${readlinkSync(abs)}`;
      else if (st.isDirectory()) {
        out[path] = `dir ${mode}`;
        walk(path);
      } else out[path] = `file ${mode} ${createHash("sha256").update(readFileSync(abs)).digest("hex")}`;
    }
  };
  walk("");
  return out;
}

export function storePaths(home: string) {
  return fermixPaths(home).plugins;
}
