import { describe, expect, test } from "bun:test";
import { mkdtempSync, readFileSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { gzipSync } from "node:zlib";
import { extractPluginArchive } from "../../../src/plugins/archive/safe-extract.ts";
import { RUNTIME_TOP_LEVEL_ENTRIES } from "../../../src/plugins/manifest/validate.ts";
import { cleanupAfterEach } from "../../fixture/cleanup.ts";
import { packTar, pluginEntries, tgz } from "./_tarball.ts";

const defer = cleanupAfterEach();

function tempDir(): string {
  const dir = mkdtempSync(join(tmpdir(), "fx-extract-"));
  defer(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
}

describe("extractPluginArchive", () => {
  test("writes files and directories with masked modes and reports a tree digest", async () => {
    const dest = join(tempDir(), "out");
    const result = await extractPluginArchive(await tgz(pluginEntries()), dest);
    expect(result.files).toEqual(["bin/run", "plugin.json", "skills/hello/SKILL.md"]);
    expect(result.treeDigest).toMatch(/^[0-9a-f]{64}$/);
    expect(result.bytes).toBeGreaterThan(0);
    expect(readFileSync(join(dest, "skills/hello/SKILL.md"), "utf8")).toContain("hello from demo");
    // setuid/world-write from the archive are dropped; the exec bit survives.
    expect(statSync(join(dest, "bin/run")).mode & 0o7777).toBe(0o755);
    expect(statSync(join(dest, "plugin.json")).mode & 0o7777).toBe(0o644);
    expect(statSync(join(dest, "skills")).mode & 0o7777).toBe(0o755);
  });

  test("the tree digest ignores archive order and `./` prefixes but not content", async () => {
    const base = pluginEntries();
    const a = await extractPluginArchive(await tgz(base), join(tempDir(), "a"));
    const reordered = [...base]
      .reverse()
      .filter((e) => e.type !== "directory")
      .map((e) => ({ ...e, name: `./${e.name}` }));
    const b = await extractPluginArchive(
      await tgz([{ name: "./", type: "directory" }, ...reordered]),
      join(tempDir(), "b"),
    );
    expect(b.treeDigest).toBe(a.treeDigest);
    const changed = pluginEntries("demo", "1.0.1");
    const c = await extractPluginArchive(await tgz(changed), join(tempDir(), "c"));
    expect(c.treeDigest).not.toBe(a.treeDigest);
  });

  test("streams from a ReadableStream in small chunks", async () => {
    const bytes = await tgz(pluginEntries());
    const stream = new ReadableStream<Uint8Array>({
      start(controller) {
        for (let i = 0; i < bytes.byteLength; i += 7) controller.enqueue(bytes.subarray(i, i + 7));
        controller.close();
      },
    });
    const result = await extractPluginArchive(stream, join(tempDir(), "out"));
    expect(result.files).toContain("plugin.json");
  });

  test("runtime files are allowed only when asked for", async () => {
    const entries = pluginEntries("demo", "1.0.0", [{ name: "package.json", body: "{}" }]);
    await expect(extractPluginArchive(await tgz(entries), join(tempDir(), "a"))).rejects.toThrow(/package\.json/);
    const ok = await extractPluginArchive(await tgz(entries), join(tempDir(), "b"), { allowRuntimeFiles: true });
    expect(ok.files).toContain("package.json");
  });

  test("every root file `plugins validate` accepts beside a runtime also installs (bun.lock, poetry.lock, …)", async () => {
    const files = RUNTIME_TOP_LEVEL_ENTRIES.map((name) => ({ name, body: "{}" }));
    const ok = await extractPluginArchive(await tgz(pluginEntries("demo", "1.0.0", files)), join(tempDir(), "c"), {
      allowRuntimeFiles: true,
    });
    for (const name of RUNTIME_TOP_LEVEL_ENTRIES) expect(ok.files).toContain(name);
  });

  test("refuses to extract into an existing directory", async () => {
    const dir = tempDir();
    await expect(extractPluginArchive(await tgz(pluginEntries()), dir)).rejects.toThrow(/EEXIST/);
  });

  test("an archive of a few MiB of ordinary content is not mistaken for a bomb", async () => {
    const text = "lorem ipsum dolor sit amet ".repeat(200_000); // ~5 MiB, compresses very well
    const tar = await packTar([...pluginEntries(), { name: "assets/big.txt", body: text }]);
    const result = await extractPluginArchive(gzipSync(tar), join(tempDir(), "out"));
    expect(result.files).toContain("assets/big.txt");
  });
});
