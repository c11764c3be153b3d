import { describe, expect, test } from "bun:test";
import { mkdir, symlink } from "node:fs/promises";
import { join } from "node:path";
import { validatePluginDir } from "../../../src/plugins/manifest/validate.ts";
import { cleanupAfterEach } from "../../fixture/cleanup.ts";
import { CORE, pluginDir, validFiles, validManifest } from "./_fixture.ts";

const defer = cleanupAfterEach();

describe("a symlink in a plugin says how to get rid of it", () => {
  test("npm's node_modules/.bin link: bundle the server or install without bin links", async () => {
    const m = validManifest();
    m.tools[0].rail = "mcp";
    delete m.tools[0].request;
    m.runtime = { kind: "node", command: "node", args: ["src/server.mjs"] };
    const { dir, remove } = await pluginDir("demo", {
      ...validFiles(m),
      "package.json": "{}",
      "src/server.mjs": "",
      "src/node_modules/tool/cli.js": "",
    });
    defer(remove);
    await mkdir(join(dir, "src/node_modules/.bin"));
    await symlink("../tool/cli.js", join(dir, "src/node_modules/.bin/tool"));
    const r = await validatePluginDir(dir, { coreVersion: CORE });
    if (r.ok) throw new Error("expected the link to be refused");
    expect(r.errors).toEqual([
      {
        path: "src/node_modules/.bin/tool",
        file: true,
        message:
          "is a symlink (npm leaves these in node_modules/.bin) and plugins may hold only plain files and folders, so bundle the server into one file or remove node_modules/.bin (npm install --no-bin-links)",
      },
    ]);
  });

  test("any other link: replace it with what it points to, with the npm hint too", async () => {
    const { dir, remove } = await pluginDir("demo", { ...validFiles(), "assets/logo.svg": "<svg/>" });
    defer(remove);
    await symlink("logo.svg", join(dir, "assets/icon.svg"));
    const r = await validatePluginDir(dir, { coreVersion: CORE });
    if (r.ok) throw new Error("expected the link to be refused");
    expect(r.errors.map((e) => e.path)).toEqual(["assets/icon.svg"]);
    expect(r.errors[0]!.message).toStartWith(
      "is a symlink and plugins may hold only plain files and folders, so replace",
    );
    expect(r.errors[0]!.message).toContain("node_modules/.bin");
  });
});
