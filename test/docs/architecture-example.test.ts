import { expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { resolve } from "node:path";

const ROOT = resolve(import.meta.dirname, "..", "..");
const read = (path: string) => readFileSync(resolve(ROOT, path), "utf8");

test("ARCHITECTURE's subsystem example is the real browser part, whole, and one line in the list", () => {
  const doc = read("docs/ARCHITECTURE.md");
  const section = doc.slice(doc.indexOf("**A subsystem**"));
  const block = /```ts\n([\s\S]*?)```/.exec(section)?.[1] ?? "";
  const [pathLine, ...code] = block.trimEnd().split("\n");
  expect(pathLine).toBe("// src/browser/browser-subsystem.ts");
  const real = read("src/browser/browser-subsystem.ts");
  const realLines = real
    .split("\n")
    .filter((line) => line.trim() && !/^\s*(\/\/|\/\*\*|\*)/.test(line) && !line.startsWith("import"));
  expect(code.filter((line) => line.trim())).toEqual(realLines);
  expect(read("src/subsystems.ts")).toContain("\n  browser: browserSubsystem,\n");
});

test("every part in the list is declared in a file of its own, named for it", () => {
  const list = read("src/subsystems.ts");
  const imports = [...list.matchAll(/import \{ (\w+Subsystem) \} from "\.\/([\w/.-]+)";/g)];
  expect(imports.length).toBeGreaterThanOrEqual(10);
  for (const [, name, path] of imports) {
    expect(path).toEndWith("-subsystem.ts");
    expect(list).toContain(`: ${name},`);
  }
});
