import { describe, expect, test } from "bun:test";
import { copyFileSync, mkdtempSync, readdirSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { embeddedFile, listEmbedded } from "../src/embedded/assets.ts";
import { fermixBinary } from "./fixture/binary.ts";

async function sha256(path: string): Promise<string> {
  return new Bun.CryptoHasher("sha256").update(await Bun.file(path).bytes()).digest("hex");
}

/** The binary must stand alone: no Bun on PATH, no node_modules, no project checkout beside it. */
describe("the compiled binary", () => {
  test("runs when copied alone into an empty directory, with catalog/ and skills/ embedded", async () => {
    const dir = mkdtempSync(join(tmpdir(), "fermix-alone-"));
    try {
      const bin = join(dir, "fermix");
      copyFileSync(await fermixBinary(), bin);
      expect(readdirSync(dir)).toEqual(["fermix"]);
      const env = { PATH: "/usr/bin:/bin", HOME: dir };
      const version = Bun.spawnSync([bin, "--version"], { cwd: dir, env });
      expect(version.exitCode).toBe(0);
      expect(version.stdout.toString()).toMatch(/^\d+\.\d+\.\d+\S*\n$/);

      const listing = Bun.spawnSync([bin, "debug", "embedded"], { cwd: dir, env });
      expect(listing.exitCode).toBe(0);
      const rows = listing.stdout
        .toString()
        .trim()
        .split("\n")
        .map((line) => line.split("\t"));
      // Exactly the project's catalog/ and skills/ files, byte for byte.
      const expected = listEmbedded();
      expect(rows.map((r) => r[0])).toEqual(expected);
      expect(expected).toContain("skills/self-knowledge/SKILL.md");
      expect(expected).toContain("catalog/index.json");
      expect(expected.some((p) => p.startsWith("catalog/keys") || p.endsWith(".pem"))).toBe(false);
      for (const [path, , hash] of rows) expect(hash).toBe(await sha256(embeddedFile(path!)));
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
