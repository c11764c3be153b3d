/**
 * Builds dist/fermix: one self-contained executable for this host with the version defined and the
 * catalog/ and skills/ folders embedded, then smoke-runs `--version` on the result.
 *
 *   bun build.ts                    → dist/fermix
 *   bun build.ts --outfile PATH     → PATH (tests build into a temp dir)
 */
import { spawnSync } from "node:child_process";
import { resolve } from "node:path";
import pkg from "./package.json" with { type: "json" };
import { EMBEDDED } from "./src/embedded/assets.ts";
import { runCatalogStep } from "./src/plugins/catalog/build-step.ts";

const root = import.meta.dir;
const outIndex = process.argv.indexOf("--outfile");
const outfile = resolve(outIndex > 0 ? process.argv[outIndex + 1]! : `${root}/dist/fermix`);
const version: string = process.env.FERMIX_BUILD_VERSION || pkg.version;

const started = performance.now();
// Signs catalog/plugins into dist/embed/catalog (and records the trusted key) so the embed below includes them.
await runCatalogStep({ root, env: process.env });
const result = await Bun.build({
  entrypoints: [`${root}/src/main.ts`],
  root,
  compile: {
    outfile,
    assets: Object.values(EMBEDDED).map((dir) => `${root}/${dir}`),
    // The binary must behave the same wherever it runs: no config files picked up from its cwd.
    autoloadBunfig: false,
    autoloadDotenv: false,
    autoloadTsconfig: false,
    autoloadPackageJson: false,
  },
  minify: true,
  // Precompiled bytecode shortens start-up, which every `fermix ask` pays.
  bytecode: true,
  format: "esm",
  splitting: true,
  define: { FERMIX_VERSION: JSON.stringify(version) },
});
if (!result.success) {
  for (const log of result.logs) console.error(log);
  process.exit(1);
}

const smoke = spawnSync(outfile, ["--version"], { encoding: "utf8", cwd: "/" });
if (smoke.status !== 0 || smoke.stdout.trim() !== version) {
  console.error(
    `smoke test failed: \`${outfile} --version\` printed ${JSON.stringify(smoke.stdout)} (exit ${smoke.status})`,
  );
  process.exit(1);
}
console.log(`built ${outfile} (version ${version}) in ${Math.round(performance.now() - started)} ms`);
