import { describe, expect, test } from "bun:test";
import { symlink, utimes } from "node:fs/promises";
import { join } from "node:path";
import { packPluginDir } from "../../../src/plugins/catalog/pack.ts";
import { listTgz, tempDir, writeFixturePlugin } from "./_fixture.ts";

describe("packPluginDir", () => {
  test("packs the same tree to the same bytes, whatever the mtimes on disk", async () => {
    await using tmp = await tempDir();
    const dir = await writeFixturePlugin(tmp.path);
    const first = await packPluginDir(dir);
    expect(await packPluginDir(dir)).toEqual(first);
    await utimes(join(dir, "plugin.json"), new Date("2031-05-06"), new Date("2031-05-06"));
    await utimes(join(dir, "bin"), new Date("1999-01-01"), new Date("1999-01-01"));
    expect(await packPluginDir(dir)).toEqual(first);
  });

  test("names entries relative to the root, sorted, with fixed owner, mtime and modes", async () => {
    await using tmp = await tempDir();
    const headers = await listTgz(await packPluginDir(await writeFixturePlugin(tmp.path)));
    expect(headers.map((h) => [h.name, h.type, h.mode?.toString(8)])).toEqual([
      ["README.md", "file", "644"],
      ["bin", "directory", "755"],
      ["bin/run", "file", "755"],
      ["plugin.json", "file", "644"],
      ["skills", "directory", "755"],
      ["skills/forecast", "directory", "755"],
      ["skills/forecast/SKILL.md", "file", "644"],
    ]);
    for (const h of headers) {
      expect(h).toMatchObject({ uid: 0, gid: 0, mtime: new Date("2020-01-01T00:00:00Z") });
    }
  });

  test("refuses a symlink in the source", async () => {
    await using tmp = await tempDir();
    const dir = await writeFixturePlugin(tmp.path);
    await symlink("/etc/passwd", join(dir, "skills", "passwd"));
    await expect(packPluginDir(dir)).rejects.toMatchObject({
      code: "plugin_pack_invalid",
      message: "skills/passwd is a symbolic link; plugins may not contain links",
    });
  });
});
