import { describe, expect, test } from "bun:test";
import { readdirSync, readFileSync } from "node:fs";
import { join, relative, resolve } from "node:path";

const SRC = resolve(import.meta.dirname, "..", "..", "src");
// Split so that this file's own text does not read as a use of either runtime.
const MARKERS = ["Bun" + ".", "Deno" + ".", "bun" + ":"];

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((e) => e.isFile())
    .map((e) => join(e.parentPath, e.name));
}

describe("one runtime seam", () => {
  test("no file of src/ outside src/runtime/ names a runtime's globals or built-in modules, comments included", () => {
    const offenders: string[] = [];
    for (const file of sourceFiles(SRC)) {
      const rel = relative(SRC, file);
      if (rel.startsWith("runtime/")) continue;
      readFileSync(file, "utf8")
        .split("\n")
        .forEach((line, i) => {
          if (MARKERS.some((m) => line.includes(m))) offenders.push(`src/${rel}:${i + 1}: ${line.trim()}`);
        });
    }
    expect(offenders).toEqual([]);
  });

  test("the seam itself is where both runtimes are named", () => {
    const seam = sourceFiles(join(SRC, "runtime"))
      .map((f) => readFileSync(f, "utf8"))
      .join("\n");
    for (const marker of MARKERS) expect(seam).toContain(marker);
  });
});
