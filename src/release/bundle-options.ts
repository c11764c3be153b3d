import { inlineTextImports } from "./inline-text-imports.ts";

/** How build.ts bundles fermix's sources before compiling them into the executable. */
export function bundleOptions(opts: { root: string; version: string; target: string }) {
  return {
    entrypoints: [`${opts.root}/src/main.ts`],
    root: opts.root,
    minify: true,
    format: "esm" as const,
    // Each command loads only its own code (issue 31): every dynamic import is a chunk boundary.
    splitting: true,
    plugins: [inlineTextImports()],
    define: { FERMIX_VERSION: JSON.stringify(opts.version), FERMIX_TARGET: JSON.stringify(opts.target) },
  };
}
