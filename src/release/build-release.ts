import { spawnSync } from "node:child_process";
import { existsSync, mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { sha256Hex } from "../runtime/hash.ts";
import { homebrewFormula } from "./formula.ts";
import { renderInstallScript } from "./install-script.ts";
import { manifestUrlFor, RELEASE_PUBLIC_KEY_FILE } from "./location.ts";
import { parseReleaseManifest, type ReleaseArtifact, type ReleaseManifest } from "./manifest.ts";
import { formatManifest, mergeRelease } from "./publish-manifest.ts";
import { isVersion } from "./semver.ts";
import { signRelease } from "./statement.ts";
import { artifactName, type ReleaseTarget } from "./targets.ts";

/** Compiles one target's binary to `outfile`, or throws saying why it could not. */
export type CompileTarget = (opts: { target: ReleaseTarget; outfile: string; version: string }) => Promise<void>;

export type ReleaseKeys = { privateKeyPem: string; publicKeyPem: string; release: boolean };

export type ReleaseBuildOptions = {
  /** The checkout: install.sh is read from here. */
  root: string;
  out: string;
  version: string;
  /** Artifact URLs are `<baseUrl>/v<version>/<name>`; releases.json is meant to be served at `<baseUrl>/releases.json`. */
  baseUrl: string;
  targets: readonly ReleaseTarget[];
  /** The one target whose binary can run here: it is smoke-run. Undefined when this host is no target. */
  hostTargetId: string | undefined;
  keys: ReleaseKeys;
  project: { description: string; homepage: string; license?: string };
  compile: CompileTarget;
  log: (line: string) => void;
  now?: () => Date;
};

export type TargetResult =
  | { target: string; name: string; built: true; bytes: number; sha256: string; ms: number; smoked: boolean }
  | { target: string; name: string; built: false; reason: string };

export type ReleaseBuildSummary = {
  version: string;
  out: string;
  results: TargetResult[];
  manifest?: ReleaseManifest;
  formula?: { included: string[]; omitted: string[] };
  warnings: string[];
};

/**
 * `bun build.ts --release`: compiles every target into `<out>/v<version>/`, writes each binary's `.sha256` and
 * its sigstore bundle over the release statement, then merges the version into `<out>/releases.json` and
 * regenerates install.sh (with the release key pinned), fermix.rb and the public key beside it.
 *
 * A target that does not compile is reported as not built, with the reason; it is never listed in the manifest.
 */
export async function buildReleaseArtifacts(opts: ReleaseBuildOptions): Promise<ReleaseBuildSummary> {
  const { out, version, log } = opts;
  if (!isVersion(version)) throw new Error(`"${version}" is not a version (expected MAJOR.MINOR.PATCH, e.g. 0.2.0)`);
  const baseUrl = checkBaseUrl(opts.baseUrl);
  const manifestUrl = manifestUrlFor(baseUrl);
  const warnings: string[] = [];
  if (!opts.keys.release) {
    warnings.push(
      "signed with the DEVELOPMENT key from catalog/keys/: this release is for testing only, never publish it " +
        "(set FERMIX_SIGNING_KEY and FERMIX_SIGNING_PUBLIC_KEY for a real release)",
    );
    log(`!!! ${warnings[0]}`);
  }
  // Read before anything is written, so a root built for another base URL fails before it is half-changed.
  const existing = readExistingManifest(join(out, "releases.json"), manifestUrl);

  // The version's folder is rebuilt whole in a staging folder, and replaces the old one only if something was
  // built: the manifest entry that replaces the old entry then matches it file for file.
  const dir = join(out, `v${version}`);
  const staging = join(out, `.v${version}.staging-${process.pid}`);
  rmSync(staging, { recursive: true, force: true });
  mkdirSync(staging, { recursive: true });

  const results: TargetResult[] = [];
  const artifacts: ReleaseArtifact[] = [];
  for (const target of opts.targets) {
    const name = artifactName(target);
    const file = join(staging, name);
    const started = performance.now();
    try {
      await opts.compile({ target, outfile: file, version });
      const smoked = target.id === opts.hostTargetId;
      const bytes = readFileSync(file);
      const sha256 = sha256Hex(bytes);
      const claim = { name, version, target: target.id, sha256 };
      writeFileSync(`${file}.sha256`, `${sha256}  ${name}\n`);
      writeFileSync(
        `${file}.sigstore.json`,
        `${JSON.stringify(signRelease(claim, opts.keys.privateKeyPem), null, 2)}\n`,
      );
      if (smoked) smokeTest(file, version, target.id);
      const ms = Math.round(performance.now() - started);
      results.push({ target: target.id, name, built: true, bytes: bytes.byteLength, sha256, ms, smoked });
      artifacts.push({
        target: target.id,
        url: `${baseUrl}/v${version}/${name}`,
        sha256,
        sig_url: `${baseUrl}/v${version}/${name}.sigstore.json`,
        cert_url: `${baseUrl}/${RELEASE_PUBLIC_KEY_FILE}`,
      });
      log(
        `built     ${target.id.padEnd(18)} ${name} (${mb(bytes.byteLength)}, ${ms} ms${smoked ? ", smoke-tested" : ""})`,
      );
    } catch (err) {
      for (const f of [file, `${file}.sha256`, `${file}.sigstore.json`]) rmSync(f, { force: true });
      const reason = (err instanceof Error ? err.message : String(err)).trim().split("\n").slice(0, 6).join("\n  ");
      results.push({ target: target.id, name, built: false, reason });
      log(`NOT BUILT ${target.id.padEnd(18)} ${reason}`);
    }
  }
  if (!artifacts.length) {
    rmSync(staging, { recursive: true, force: true });
    return { version, out, results, warnings };
  }
  rmSync(dir, { recursive: true, force: true });
  renameSync(staging, dir);

  const release = { version, published_at: (opts.now?.() ?? new Date()).toISOString(), artifacts };
  const manifest = mergeRelease(existing, release);
  const manifestText = formatManifest(manifest);
  // What install.sh and `fermix upgrade` read must still parse as the schema says.
  parseReleaseManifest(JSON.parse(manifestText), manifestUrl);

  const keyFile = join(out, RELEASE_PUBLIC_KEY_FILE);
  if (existsSync(keyFile) && readFileSync(keyFile, "utf8").trim() !== opts.keys.publicKeyPem.trim()) {
    warnings.push(`${RELEASE_PUBLIC_KEY_FILE} is replaced by another key: earlier releases' cert_url now names it`);
  }
  writeAtomic(keyFile, `${opts.keys.publicKeyPem.trim()}\n`);
  const script = renderInstallScript(readFileSync(join(opts.root, "install.sh"), "utf8"), {
    publicKeyPem: opts.keys.publicKeyPem,
    manifestUrl,
  });
  writeAtomic(join(out, "install.sh"), script, 0o755);

  const latest = manifest.releases.find((r) => r.version === manifest.latest)!;
  let formula: ReturnType<typeof homebrewFormula> | undefined;
  try {
    formula = homebrewFormula({ ...opts.project, version: latest.version, artifacts: latest.artifacts });
    writeAtomic(join(out, "fermix.rb"), formula.text);
  } catch (err) {
    // A stale formula would name an older release than `latest`: better none.
    rmSync(join(out, "fermix.rb"), { force: true });
    warnings.push(`fermix.rb not written: ${(err as Error).message}`);
  }
  // Written last: a manifest never lists files that are not in place yet.
  writeAtomic(join(out, "releases.json"), manifestText);
  return { version, out, results, manifest, formula, warnings };
}

function checkBaseUrl(text: string): string {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    throw new Error(`--base-url ${text} is not an absolute URL`);
  }
  if (url.protocol !== "https:" && url.protocol !== "http:") throw new Error(`--base-url ${text} is not http(s)`);
  if (url.search || url.hash) throw new Error(`--base-url ${text} must not have a query or fragment`);
  return url.href.replace(/\/+$/, "");
}

function readExistingManifest(path: string, manifestUrl: string): ReleaseManifest | undefined {
  if (!existsSync(path)) return undefined;
  try {
    return parseReleaseManifest(JSON.parse(readFileSync(path, "utf8")), manifestUrl);
  } catch (err) {
    throw new Error(
      `${path} cannot take this release: ${(err as Error).message}. Build with the same --base-url as before, or into a new --out`,
    );
  }
}

/** The host's binary must answer `--version` with the release version and verify its own release signature. */
function smokeTest(file: string, version: string, target: string): void {
  const run = (args: string[]) => spawnSync(file, args, { encoding: "utf8", cwd: "/", env: { PATH: "/usr/bin:/bin" } });
  const printed = run(["--version"]);
  if (printed.status !== 0 || printed.stdout.trim() !== version) {
    throw new Error(`smoke test failed: --version printed ${JSON.stringify(printed.stdout)} (exit ${printed.status})`);
  }
  // The binary must trust the key that signed its release, or install.sh's fallback check would refuse it.
  const verified = run([
    "verify-release",
    "--bundle",
    `${file}.sigstore.json`,
    "--version",
    version,
    "--target",
    target,
    file,
  ]);
  if (verified.status !== 0) {
    throw new Error(
      `smoke test failed: verify-release on its own bundle: ${verified.stderr.trim() || verified.stdout.trim()}`,
    );
  }
}

function writeAtomic(path: string, text: string, mode = 0o644): void {
  const tmp = `${path}.tmp-${process.pid}`;
  writeFileSync(tmp, text, { mode });
  renameSync(tmp, path);
}

export function mb(bytes: number): string {
  return `${(bytes / 1e6).toFixed(1)} MB`;
}

/** The lines `bun build.ts --release` ends with. */
export function renderSummary(summary: ReleaseBuildSummary, allTargetIds: string[]): string[] {
  const built = summary.results.filter((r) => r.built);
  const lines = [
    ``,
    `release ${summary.version} → ${summary.out}: ${built.length} of ${summary.results.length} targets built`,
  ];
  for (const r of summary.results) {
    lines.push(
      r.built
        ? `  built      ${r.target.padEnd(18)} ${mb(r.bytes)}  sha256 ${r.sha256}${r.smoked ? "  (smoke-tested)" : ""}`
        : `  NOT BUILT  ${r.target.padEnd(18)} ${r.reason}`,
    );
  }
  const skipped = allTargetIds.filter((id) => !summary.results.some((r) => r.target === id));
  if (skipped.length) lines.push(`  not asked for (--target): ${skipped.join(", ")}`);
  lines.push("  not a target: Windows (fermix needs unix sockets and a systemd/launchd service; use WSL 2)");
  if (summary.manifest) {
    const versions = summary.manifest.releases.map((r) => r.version).join(", ");
    lines.push(`  releases.json: latest ${summary.manifest.latest}; releases ${versions}`);
  } else {
    lines.push("  releases.json, install.sh, fermix.rb: left as they were (nothing was built)");
  }
  if (summary.formula) {
    const omitted = summary.formula.omitted.length
      ? `; omitted (not built): ${summary.formula.omitted.join(", ")}`
      : "";
    lines.push(`  fermix.rb: ${summary.formula.included.join(", ")}${omitted}`);
  }
  for (const w of summary.warnings) lines.push(`  WARNING: ${w}`);
  return lines;
}
