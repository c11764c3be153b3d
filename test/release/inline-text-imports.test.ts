import { describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { inlineTextImports } from "../../src/release/inline-text-imports.ts";
import { fermixBinary } from "../fixture/binary.ts";

describe("text imports in the build", () => {
  test("become string literals of the importing chunk, with the file's exact text", async () => {
    const dir = mkdtempSync(join(tmpdir(), "fermix-text-"));
    try {
      // Quotes, a backslash, backticks and a placeholder's dollar-brace: each must come through as written.
      const text = `A "quoted" line\n\\ and a backslash, \`ticks\` and $\{not a template}\n`;
      writeFileSync(join(dir, "guide.md"), text);
      writeFileSync(
        join(dir, "entry.ts"),
        'import guide from "./guide.md" with { type: "text" };\nexport const GUIDE = guide;\n',
      );
      const result = await Bun.build({
        entrypoints: [join(dir, "entry.ts")],
        outdir: join(dir, "out"),
        format: "esm",
        splitting: true,
        plugins: [inlineTextImports()],
      });
      expect(result.success).toBe(true);
      const files = result.outputs.map((output) => output.path);
      expect(files.filter((path) => path.endsWith(".md"))).toEqual([]);
      const { GUIDE } = await import(result.outputs[0]!.path);
      expect(GUIDE).toBe(text);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  test("leave no text file for the compiled binary to require at load time", async () => {
    const bytes = Buffer.from(await Bun.file(await fermixBinary()).arrayBuffer());
    const required: string[] = [];
    // A text file left to load is named by its path in the binary's file system (the call's name is minified).
    const call = '"/$bunfs/root/';
    for (let at = bytes.indexOf(call); at >= 0; at = bytes.indexOf(call, at + 1)) {
      const end = bytes.indexOf('"', at + 1);
      required.push(bytes.subarray(at + call.length, end).toString());
    }
    expect(required.filter((name) => /\.(md|bash)$/.test(name))).toEqual([]);
    // The browser tool's description is still in it, as text.
    expect(bytes.includes("Drives a real Chromium")).toBe(true);
  }, 120_000);
});
