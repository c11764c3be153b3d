/**
 * The shape of the binary's code: how many chunks build.ts's bundle splits fermix into, and of what kind (issue 31).
 * Every chunk is a module the compiled binary's module graph holds, and each one costs every run of the binary,
 * `--version` included, whether it is loaded or not: measured on a 2-vCPU VM, 380 chunks that a print-a-line program
 * never loads added 48 page faults (775 against 727) to its start. A chunk that is loaded also costs its own module
 * load (~8 µs apart from its code: 80 one-function modules in 80 chunks loaded in 0.65–0.9 ms, in one chunk in
 * 0.16 ms), and its code ~3–4.5 µs a kilobyte of minified source (480 KB of never-called functions imported in
 * 1.4–2.3 ms with bytecode).
 *
 * A facade is a chunk with no code of its own: a module that one file imports dynamically and another statically
 * lives in a shared chunk, and its dynamic import gets a chunk that only re-exports it. Fewer chunks mean fewer
 * dynamic-import boundaries, or boundaries around whole features rather than single small modules.
 *
 *   bun bench/chunk-shape.ts [--list N]    (N: how many facades and small chunks to name; 10 by default)
 */
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join, relative, resolve } from "node:path";
import { parseArgs } from "node:util";
import pkg from "../package.json" with { type: "json" };
import { bundleOptions } from "../src/release/bundle-options.ts";

const { values: flags } = parseArgs({ args: Bun.argv.slice(2), options: { list: { type: "string", default: "10" } } });
const listed = Number(flags.list);
const root = join(import.meta.dir, "..");
const out = await mkdtemp(join(tmpdir(), "fermix-chunks-"));
try {
  const result = await Bun.build({
    ...bundleOptions({ root, version: pkg.version, target: `${process.platform}-${process.arch}` }),
    outdir: out,
    target: "bun",
    metafile: true,
    throw: false,
  });
  if (!result.success) throw new Error(result.logs.map(String).join("\n"));
  const chunks = Object.entries(result.metafile!.outputs).map(([name, o]) => ({
    name,
    bytes: o.bytes,
    modules: Object.keys(o.inputs).length,
    // The metafile names an entry relative to the working directory.
    entry: o.entryPoint && relative(root, resolve(o.entryPoint)),
  }));
  const facades = chunks.filter((c) => c.modules === 0);
  const single = chunks.filter((c) => c.modules === 1);
  const small = chunks.filter((c) => c.modules > 0 && c.bytes < 1024);
  const kb = (n: number) => `${(n / 1024).toFixed(1)} KB`;
  console.log(`fermix ${pkg.version}: ${chunks.length} chunks, ${kb(chunks.reduce((s, c) => s + c.bytes, 0))} of code`);
  console.log(`  facades (re-exports only)     ${facades.length}`);
  console.log(`  one module each               ${single.length}`);
  console.log(`  under 1 KB (with code)        ${small.length}`);
  if (listed > 0) {
    console.log(`facades, by the module they re-export (first ${listed}):`);
    for (const c of facades.slice(0, listed)) console.log(`  ${c.entry ?? c.name}`);
  }
} finally {
  await rm(out, { recursive: true, force: true });
}
