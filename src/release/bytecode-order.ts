import { existsSync, readdirSync } from "node:fs";
import { join } from "node:path";

/**
 * Where the profiles of the binary's everyday runs live (bench/record-bytecode-order.ts writes them), one
 * `<rank>-<run>.order` each; build.ts lays the embedded bytecode out by them, the lowest rank (the most common run)
 * first. Build inputs, committed like src/capabilities/prerendered-specs.json.
 */
export const BYTECODE_ORDER_DIR = join(import.meta.dir, "..", "..", "build", "bytecode-order");

/** The profiles in rank order; none when the folder is absent (a build without them is laid out as before). */
export function bytecodeOrderFiles(dir: string = BYTECODE_ORDER_DIR): string[] {
  if (!existsSync(dir)) return [];
  return readdirSync(dir)
    .filter((name) => name.endsWith(".order"))
    .sort()
    .map((name) => join(dir, name));
}
