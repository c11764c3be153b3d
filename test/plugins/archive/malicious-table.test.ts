import { describe, expect, test } from "bun:test";
import { mkdirSync, mkdtempSync, readdirSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, relative } from "node:path";
import { FermixError } from "../../../src/error.ts";
import { extractPluginArchive } from "../../../src/plugins/archive/safe-extract.ts";
import { cleanupAfterEach } from "../../fixture/cleanup.ts";
import { cases } from "./_malicious-cases.ts";

const defer = cleanupAfterEach();

function walk(root: string, dir = root): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((d) => {
    const path = join(dir, d.name);
    return [relative(root, path), ...(d.isDirectory() ? walk(root, path) : [])];
  });
}

describe("extractPluginArchive refuses malicious archives", () => {
  test("the table is broad", () => {
    expect(cases.length).toBeGreaterThanOrEqual(20);
  });

  for (const c of cases) {
    test(c.name, async () => {
      const root = mkdtempSync(join(tmpdir(), "fx-evil-"));
      defer(() => rmSync(root, { recursive: true, force: true }));
      mkdirSync(join(root, "outside"));
      const dest = join(root, "sandbox", "out");
      mkdirSync(join(root, "sandbox"));
      const bytes = await c.build(root);

      const err = await extractPluginArchive(bytes, dest, c.limits).then(
        () => undefined,
        (e: unknown) => e,
      );
      expect(err).toBeInstanceOf(FermixError);
      expect((err as FermixError).code).toBe("plugin_archive_invalid");
      expect((err as FermixError).message).toMatch(c.error);
      // Nothing outside destDir: the only things in the sandbox are the untouched `outside` dir and destDir.
      const stray = walk(root).filter((p) => p !== "outside" && p !== "sandbox" && !p.startsWith("sandbox/out"));
      expect(stray).toEqual([]);
    });
  }
});
