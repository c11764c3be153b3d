// `bun test/architecture/_report.ts [src]`: the layering as it stands — broken rules, cross-part cycles, every
// file-level import cycle and the longest functions. For working on the layers; the tests hold the limits.
import { resolve } from "node:path";
import { functionLengths } from "./_function-lengths.ts";
import { fileCycles, layerViolations } from "./_layer-rules.ts";

const root = resolve(process.argv[2] ?? resolve(import.meta.dirname, "..", "..", "src"));
const violations = layerViolations(root);
console.log(`== layer violations and cross-part cycles: ${violations.length}`);
for (const v of violations) console.log(v);
const all = fileCycles(root);
console.log(`\n== file-level import cycles: ${all.length}`);
for (const c of all) console.log(`- (${c.length}) ${c.join(" ")}`);
const long = functionLengths(root)
  .filter((f) => f.lines > 150)
  .sort((a, b) => b.lines - a.lines);
console.log(`\n== functions over 150 lines: ${long.length}`);
for (const f of long) console.log(`${f.lines}\t${f.file}:${f.line} ${f.name}`);
