import { readFile } from "node:fs/promises";
import type { BunPlugin } from "bun";

/** The files the source imports `with { type: "text" }`: prompt templates and tool descriptions, the bash completion. */
export const TEXT_IMPORT_FILTER = /\.(md|bash)$/;

/**
 * Bun's compiled, bytecode-split build keeps each `with { type: "text" }` import as a file of its own that the
 * importing chunk requires at load time; measured in a compiled binary, ~50 µs a file, and an in-process
 * `fermix ask` loads nine of them (the browser tool's description, the prompt templates, …) before its first
 * request (issue 31). Loaded through this plugin the text is a string literal in the importing chunk instead:
 * the same string, nothing left to require. `bun test` and `bun src/main.ts` keep Bun's own text loader.
 */
export function inlineTextImports(): BunPlugin {
  return {
    name: "inline-text-imports",
    setup(build) {
      build.onLoad({ filter: TEXT_IMPORT_FILTER }, async (args) => ({
        contents: `export default ${JSON.stringify(await readFile(args.path, "utf8"))};`,
        loader: "js",
      }));
    },
  };
}
