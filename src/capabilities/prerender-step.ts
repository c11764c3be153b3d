import { readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
// Each list declares its tools `prerendered` where it is defined: importing them registers every one.
import "./builtins/registry.ts";
import "./builtins/web-tools.ts";
import "./deferral/bridges.ts";
import { type PrerenderedSpecs, prerenderedTools, schemaFingerprint } from "./prerendered-specs.ts";
import { convertParameters } from "./tool-spec.ts";

/** Where the pre-rendered schemas live, from the project root (imported by prerendered-specs.ts). */
export const PRERENDERED_SPECS_FILE = "src/capabilities/prerendered-specs.json";

/** Every pre-rendered tool's parameters, converted now: what the committed file must hold. */
export function renderSpecs(): PrerenderedSpecs {
  const specs: PrerenderedSpecs = {};
  for (const tool of prerenderedTools()) {
    if (Object.hasOwn(specs, tool.name)) throw new Error(`two pre-rendered tools are named ${tool.name}`);
    const parameters = convertParameters(tool.parameters);
    specs[tool.name] = {
      fingerprint: schemaFingerprint(tool.parameters),
      parameters,
      bytes: JSON.stringify(parameters).length,
    };
  }
  return specs;
}

/** The file's text for `specs`: stable, so an unchanged tool set rewrites nothing. */
export function renderSpecsFile(specs: PrerenderedSpecs = renderSpecs()): string {
  return `${JSON.stringify(specs, null, 2)}\n`;
}

/**
 * build.ts's schema step: brings prerendered-specs.json up to date before the compile embeds it, so a binary never
 * carries a stale form. `changed` means the committed file was stale (and is now rewritten: commit it).
 */
export async function runPrerenderStep(opts: { root: string }): Promise<{ tools: number; changed: boolean }> {
  const specs = renderSpecs();
  const text = renderSpecsFile(specs);
  const path = join(opts.root, PRERENDERED_SPECS_FILE);
  const changed = (await readFile(path, "utf8").catch(() => "")) !== text;
  if (changed) await writeFile(path, text);
  return { tools: Object.keys(specs).length, changed };
}

// `bun src/capabilities/prerender-step.ts`: regenerate the file without building.
if (import.meta.main) {
  const { changed, tools } = await runPrerenderStep({ root: join(import.meta.dirname, "..", "..") });
  console.log(`${PRERENDERED_SPECS_FILE}: ${tools} tools, ${changed ? "rewritten" : "already up to date"}`);
}
