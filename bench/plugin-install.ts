/**
 * How long does installing a plugin take? Builds a ~5 MiB plugin tarball (half compressible text, half random
 * bytes, ~300 files), signs it with a throwaway P-256 key, then times the store's whole
 * install — stream to staging with sha256, verify the signature with src/trust, safe-extract, validate (a
 * minimal stand-in for the manifest validator), swap, link, record — into a fresh FERMIX_HOME per run.
 * Prints median and p90 in ms.
 *
 *   bun bench/plugin-install.ts [--runs N] [--warmup N] [--stub-signature]
 */
import { generateKeyPairSync } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import { readFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { gzipSync } from "node:zlib";
import * as tar from "tar-stream";
import { fermixPaths } from "../src/config/paths.ts";
import type { InstallInput } from "../src/plugins/store/install.ts";
import { createPluginStore } from "../src/plugins/store/plugin-store.ts";
import { signArtifact } from "../src/trust/sign.ts";
import { createTrustMaterial } from "../src/trust/trust-material.ts";
import { verifyArtifact } from "../src/trust/verify.ts";
import { stats } from "./_measure.ts";

const { values: flags } = parseArgs({
  args: Bun.argv.slice(2),
  options: {
    runs: { type: "string", default: "20" },
    warmup: { type: "string", default: "3" },
    "stub-signature": { type: "boolean", default: false },
  },
});
const RUNS = Number(flags.runs);
const WARMUP = Number(flags.warmup);
if (!Number.isInteger(RUNS) || RUNS < 1 || !Number.isInteger(WARMUP) || WARMUP < 0) {
  console.error("--runs and --warmup take whole numbers");
  process.exit(2);
}

let fileCount = 0;

async function buildTarball(): Promise<Uint8Array> {
  const pack = tar.pack();
  const chunks: Buffer[] = [];
  const drained = (async () => {
    for await (const chunk of pack as AsyncIterable<Buffer>) chunks.push(chunk);
  })();
  const add = (name: string, body: string | Uint8Array, mode = 0o644) => {
    fileCount++;
    return new Promise<void>((resolve, reject) =>
      pack.entry({ name, mode, size: Buffer.byteLength(body) }, body, (err) => (err ? reject(err) : resolve())),
    );
  };
  await add(
    "plugin.json",
    JSON.stringify({ name: "bench", version: "1.0.0", plugin_api: 1, min_core_version: "0.1.0" }),
  );
  await add("README.md", "# bench plugin\n".repeat(100));
  for (let i = 0; i < 200; i++) {
    await add(
      `skills/skill-${i}/SKILL.md`,
      `# skill ${i}\n${"Use this skill when the owner asks about things. ".repeat(260)}`,
    );
  }
  // Random bytes do not compress: they are what makes the tarball itself ~5 MiB.
  for (let i = 0; i < 76; i++) await add(`assets/blob-${i}.bin`, crypto.getRandomValues(new Uint8Array(64 * 1024)));
  await add("bin/tool", "#!/bin/sh\nexit 0\n", 0o755);
  pack.finalize();
  await drained;
  return gzipSync(Buffer.concat(chunks));
}

const validate: InstallInput["validate"] = async (dir) => {
  const manifest = JSON.parse(await readFile(join(dir, "plugin.json"), "utf8"));
  if (manifest.name !== "bench" || manifest.version !== "1.0.0") {
    return { ok: false, errors: [{ path: "name", message: "not bench@1.0.0" }] };
  }
  return { ok: true, manifest };
};

const artifact = await buildTarball();
const sha256 = new Bun.CryptoHasher("sha256").update(artifact).digest("hex");
const { privateKey, publicKey } = generateKeyPairSync("ec", { namedCurve: "prime256v1" });
const bundle = signArtifact(artifact, privateKey.export({ type: "pkcs8", format: "pem" }).toString());
const trust = createTrustMaterial({ publicKeys: [publicKey.export({ type: "spki", format: "pem" }).toString()] });
const verifySignature: InstallInput["verifySignature"] = flags["stub-signature"]
  ? async () => {}
  : (bytes) => verifyArtifact({ bytes, bundle, trust });

const times: number[] = [];
for (let i = 0; i < WARMUP + RUNS; i++) {
  const base = mkdtempSync(join(tmpdir(), "fx-bench-install-"));
  try {
    const store = createPluginStore({ paths: fermixPaths(join(base, "h")).plugins });
    const t0 = performance.now();
    await store.install({
      name: "bench",
      version: "1.0.0",
      artifact: new Blob([artifact]).stream(),
      expectedSha256: sha256,
      verifySignature,
      validate,
    });
    if (i >= WARMUP) times.push(performance.now() - t0);
  } finally {
    rmSync(base, { recursive: true, force: true });
  }
}

const { median, p90 } = stats(times);
const mib = (artifact.byteLength / 1024 / 1024).toFixed(2);
const signature = flags["stub-signature"] ? "stub signature" : "real signature (src/trust)";
console.log(`plugin install: ${mib} MiB tarball, ${fileCount} files, ${signature}, ${RUNS} runs`);
console.log(`median ${median.toFixed(1)} ms   p90 ${p90.toFixed(1)} ms`);
