/**
 * Builds fermix: one self-contained executable with the version and target defined and the catalog/ and
 * skills/ folders embedded, then smoke-runs `--version` on the result.
 *
 *   bun build.ts                    → dist/fermix for this host
 *   bun build.ts --outfile PATH     → PATH (tests build into a temp dir)
 *   bun build.ts --release [--target ID[,ID…]] [--out DIR] [--base-url URL]
 *                                   → every release target (or those named) under DIR (default dist/release):
 *                                     v<version>/fermix_<os>_<arch> with .sha256 and .sigstore.json, and
 *                                     releases.json (merged), install.sh, fermix.rb, fermix-release.pub.pem
 *
 * FERMIX_VERSION overrides package.json's version. Signing uses FERMIX_SIGNING_KEY and FERMIX_SIGNING_PUBLIC_KEY
 * when set, else the development key in catalog/keys/ (a release signed with it is for testing only).
 */
import { spawnSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { parseArgs } from "node:util";
import pkg from "./package.json" with { type: "json" };
import { PRERENDERED_SPECS_FILE, runPrerenderStep } from "./src/capabilities/prerender-step.ts";
import { EMBEDDED } from "./src/embedded/assets.ts";
import { runCatalogStep } from "./src/plugins/catalog/build-step.ts";
import { buildReleaseArtifacts, type ReleaseKeys, renderSummary } from "./src/release/build-release.ts";
import { bundleOptions } from "./src/release/bundle-options.ts";
import { bytecodeOrderFiles } from "./src/release/bytecode-order.ts";
import { RELEASE_BASE_URL } from "./src/release/location.ts";
import { isVersion } from "./src/release/semver.ts";
import { hostTarget, RELEASE_TARGETS, targetById } from "./src/release/targets.ts";
import { DEV_PUBLIC_KEY_FILE } from "./src/trust/embedded-keys.ts";
import { keyHint } from "./src/trust/trust-material.ts";

const root = import.meta.dir;
const args = parseBuildArgs();
const version: string = process.env.FERMIX_VERSION || pkg.version;
if (!isVersion(version)) fail(`FERMIX_VERSION=${version} is not a version (expected MAJOR.MINOR.PATCH, e.g. 0.2.0)`);
const releaseFlags = args.target || args.out || args["base-url"];
if (!args.release && releaseFlags) fail("--target, --out and --base-url need --release");
if (args.release && args.outfile) fail("--outfile builds one host binary; a release is written under --out");

const allTargetIds = RELEASE_TARGETS.map((t) => t.id);
const wanted = args.target ? [...new Set(args.target.split(",").map((id) => id.trim()))] : allTargetIds;
const targets = wanted.map(
  (id) => targetById(id) ?? fail(`unknown --target ${id} (known: ${allTargetIds.join(", ")})`),
);

const started = performance.now();
// Signs catalog/plugins into dist/embed/catalog (and records the trusted key) so the embed below includes them.
const catalog = await runCatalogStep({ root, env: process.env });
// The built-in tools' wire schemas, rendered from their sources now so the binary never embeds a stale form.
const prerendered = await runPrerenderStep({ root });
if (prerendered.changed) console.log(`build.ts: ${PRERENDERED_SPECS_FILE} was stale and is rewritten: commit it`);

const bytecodeOrder = bytecodeOrderFiles();
/**
 * JavaScriptCore's tier-up thresholds ×100 for the whole life of every run (Bun's `compile.jitPolicy`; 1 is JSC's
 * own). fermix's start-up code (config sections, schemas, the daemon's boot) runs once, and a daemon's turns are
 * I/O-bound; under the default policy both reached the optimizing JITs, whose compiles, code pages and memory never
 * paid back. Measured on the daemon (bench/daemon-rss.ts, cold): −3.9 MB resident after boot and after one ask,
 * −6 MB once 1,000 queued turns settle, and no more CPU for those turns; an in-process `ask` takes ~10% fewer page
 * faults. At ×1000 the first screenshot's resize and PNG coding ran ~2× slower; at ×100 as before.
 */
const JIT_POLICY = 100;

/** One `bun build --compile`; `bunTarget` cross-compiles (Bun fetches that runtime from the npm registry). */
async function compile(opts: { outfile: string; target: string; bunTarget?: Bun.Build.CompileTarget }) {
  const result = await Bun.build({
    ...bundleOptions({ root, version, target: opts.target }),
    compile: {
      outfile: opts.outfile,
      // An explicit `target: undefined` is refused by Bun: leave the key out for a host build.
      ...(opts.bunTarget ? { target: opts.bunTarget } : {}),
      assets: Object.values(EMBEDDED).map((dir) => `${root}/${dir}`),
      // The binary must behave the same wherever it runs: no config files picked up from its cwd.
      autoloadBunfig: false,
      autoloadDotenv: false,
      autoloadTsconfig: false,
      autoloadPackageJson: false,
      // The functions the everyday runs use, placed together at the front of the bytecode: a run maps fewer pages
      // of the executable (the daemon's boot ~4.7 MB fewer resident). Recorded by bench/record-bytecode-order.ts.
      bytecodeOrder: bytecodeOrder.length > 0 && bytecodeOrder,
      jitPolicy: JIT_POLICY,
    },
    // Precompiled bytecode shortens start-up, which every `fermix ask` pays.
    bytecode: true,
    throw: false,
  });
  if (!result.success) throw new Error(result.logs.map((log) => String(log)).join("\n") || "bun build failed");
}

if (args.release) {
  const summary = await buildReleaseArtifacts({
    root,
    out: resolve(args.out ?? `${root}/dist/release`),
    version,
    baseUrl: args["base-url"] ?? RELEASE_BASE_URL,
    targets,
    hostTargetId: hostTarget()?.id,
    keys: releaseKeys(catalog),
    project: {
      description: pkg.description,
      homepage: RELEASE_BASE_URL,
      license: (pkg as { license?: string }).license,
    },
    compile: ({ target, outfile }) =>
      compile({ outfile, target: target.id, bunTarget: target.compileTarget as Bun.Build.CompileTarget }),
    log: (line) => console.log(line),
  });
  for (const line of renderSummary(summary, allTargetIds)) console.log(line);
  console.log(`  took ${Math.round(performance.now() - started)} ms`);
  process.exit(summary.results.every((r) => r.built) ? 0 : 1);
}

const outfile = resolve(args.outfile ?? `${root}/dist/fermix`);
const host = hostTarget()?.id ?? `${process.platform}-${process.arch}`;
try {
  await compile({ outfile, target: host });
} catch (err) {
  fail((err as Error).message);
}
const smoke = spawnSync(outfile, ["--version"], { encoding: "utf8", cwd: "/" });
if (smoke.status !== 0 || smoke.stdout.trim() !== version) {
  fail(`smoke test failed: \`${outfile} --version\` printed ${JSON.stringify(smoke.stdout)} (exit ${smoke.status})`);
}
console.log(`built ${outfile} (version ${version}, ${host}) in ${Math.round(performance.now() - started)} ms`);

/**
 * The key pair the catalog step signed with, which is also the one key the binaries trust (trusted-keys.json):
 * the release signature must verify with the binary's own `verify-release`.
 */
function releaseKeys(step: { release: boolean; keyHint: string }): ReleaseKeys {
  const keys = step.release
    ? {
        privateKeyPem: process.env.FERMIX_SIGNING_KEY!,
        publicKeyPem: process.env.FERMIX_SIGNING_PUBLIC_KEY!,
        release: true,
      }
    : {
        privateKeyPem: readFileSync(join(root, "catalog/keys/dev-signing-key.pem"), "utf8"),
        publicKeyPem: readFileSync(join(root, DEV_PUBLIC_KEY_FILE), "utf8"),
        release: false,
      };
  if (keyHint(keys.privateKeyPem) !== step.keyHint) fail("the release signing key is not the key the binaries trust");
  return keys;
}

function parseBuildArgs() {
  try {
    return parseArgs({
      options: {
        outfile: { type: "string" },
        release: { type: "boolean", default: false },
        target: { type: "string" },
        out: { type: "string" },
        "base-url": { type: "string" },
      },
      strict: true,
    }).values;
  } catch (err) {
    return fail((err as Error).message);
  }
}

function fail(message: string): never {
  console.error(`build.ts: ${message}`);
  process.exit(1);
}
