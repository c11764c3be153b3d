import { describe, expect, test } from "bun:test";
import { readdirSync } from "node:fs";
import { mkdir, symlink, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { validatePluginDir } from "../../../src/plugins/manifest/validate.ts";
import { cleanupAfterEach } from "../../fixture/cleanup.ts";
import { CORE, pluginDir, validFiles, validManifest } from "./_fixture.ts";

const CATALOG = join(import.meta.dir, "../../../catalog/plugins");
const CATALOG_NAMES = readdirSync(CATALOG).sort();
const defer = cleanupAfterEach();

async function dirWith(files: Record<string, string>, name = "demo"): Promise<string> {
  const { dir, remove } = await pluginDir(name, files);
  defer(remove);
  return dir;
}

async function issuePaths(
  dir: string,
  opts: { expectedName?: string; expectedVersion?: string } = {},
): Promise<string[]> {
  const r = await validatePluginDir(dir, { coreVersion: CORE, ...opts });
  return r.ok ? [] : r.errors.map((e) => e.path);
}

describe("the catalog's plugin sources", () => {
  test("hold the ten expected plugins", () => {
    expect(CATALOG_NAMES).toEqual([
      "agentmail",
      "discord",
      "github",
      "gmail",
      "google_calendar",
      "google_drive",
      "notion",
      "obsidian",
      "slack",
      "x",
    ]);
  });

  test.each(CATALOG_NAMES)("%s is a valid plugin directory", async (name) => {
    const r = await validatePluginDir(join(CATALOG, name), {
      expectedName: name,
      expectedVersion: "1.0.0",
      coreVersion: CORE,
    });
    if (!r.ok) throw new Error(JSON.stringify(r.errors, null, 2));
    expect(r.manifest.plugin_api).toBe(2);
    expect(r.manifest.min_core_version).toBe("0.1.0");
    expect(r.manifest.tools.length).toBeGreaterThanOrEqual(3);
    expect(r.manifest.tools.length).toBeLessThanOrEqual(12);
    expect(r.manifest.skills.length).toBe(1);
  });

  test("auth and rails match the published table", async () => {
    const expected: Record<string, [string, string]> = {
      github: ["oauth2", "http"],
      notion: ["oauth2", "http"],
      x: ["oauth2", "http"],
      slack: ["api_key", "http"],
      discord: ["api_key", "http"],
      agentmail: ["api_key", "http"],
      obsidian: ["none", "mcp"],
      gmail: ["oauth2", "http"],
      google_calendar: ["oauth2", "http"],
      google_drive: ["oauth2", "http"],
    };
    for (const name of CATALOG_NAMES) {
      const r = await validatePluginDir(join(CATALOG, name), { coreVersion: CORE });
      if (!r.ok) throw new Error(name);
      const m = r.manifest;
      expect([m.auth.type, [...new Set(m.tools.map((t) => t.rail))].join("+")]).toEqual(expected[name]!);
      if (m.auth.type === "oauth2" && name.startsWith("g") && name !== "github") expect(m.auth.provider).toBe("google");
    }
    const discord = await validatePluginDir(join(CATALOG, "discord"), { coreVersion: CORE });
    expect(discord.ok && discord.manifest.auth.type === "api_key" && discord.manifest.auth.scheme).toBe("Bot");
  });
});

describe("validatePluginDir", () => {
  test("accepts a small valid plugin", async () => {
    expect(await issuePaths(await dirWith(validFiles()), { expectedName: "demo" })).toEqual([]);
  });

  test("a missing plugin.json and invalid JSON are issues at plugin.json", async () => {
    const files = validFiles();
    delete files["plugin.json"];
    expect(await issuePaths(await dirWith(files))).toContain("plugin.json");
    const r = await validatePluginDir(await dirWith({ ...validFiles(), "plugin.json": "{ nope" }), {
      coreVersion: CORE,
    });
    expect(r.ok).toBe(false);
    if (!r.ok) expect(r.errors[0]).toMatchObject({ path: "plugin.json", file: true });
    if (!r.ok) expect(r.errors[0]!.message).toStartWith("is not valid JSON");
  });

  test("refuses entries outside the top-level allowlist", async () => {
    const dir = await dirWith({ ...validFiles(), "node_modules/x/index.js": "", "notes.txt": "", LICENSE: "MIT" });
    expect((await issuePaths(dir)).sort()).toEqual(["node_modules", "notes.txt"]);
  });

  test("package.json and lockfiles are allowed only with a runtime", async () => {
    const plain = await dirWith({ ...validFiles(), "package.json": "{}", "bun.lock": "" });
    expect((await issuePaths(plain)).sort()).toEqual(["bun.lock", "package.json"]);
    const m = validManifest();
    m.tools[0].rail = "mcp";
    delete m.tools[0].request;
    m.runtime = { kind: "node", command: "node", args: ["src/server.mjs"] };
    const withRuntime = await dirWith({ ...validFiles(m), "package.json": "{}", "bun.lock": "", "src/server.mjs": "" });
    expect(await issuePaths(withRuntime)).toEqual([]);
  });

  test("refuses symlinks anywhere in the tree", async () => {
    const dir = await dirWith({ ...validFiles(), "assets/logo.svg": "<svg/>" });
    await symlink("/etc/passwd", join(dir, "assets/passwd"));
    await symlink("../README.md", join(dir, "skills/demo-guide/readme"));
    const r = await validatePluginDir(dir, { coreVersion: CORE });
    if (r.ok) throw new Error("expected issues");
    expect(r.errors.map((e) => e.path).sort()).toEqual(["assets/passwd", "skills/demo-guide/readme"]);
    expect(r.errors.every((e) => e.file && e.message.includes("symlink"))).toBe(true);
  });

  test("a symlinked skill folder is refused rather than followed", async () => {
    const files = validFiles();
    delete files["skills/demo-guide/SKILL.md"];
    const dir = await dirWith({ ...files, "src/real/SKILL.md": "x" });
    await mkdir(join(dir, "skills"));
    await symlink(join(dir, "src/real"), join(dir, "skills/demo-guide"));
    expect((await issuePaths(dir)).sort()).toEqual(["skills/demo-guide", "skills[0].path"]);
  });

  test("each skill path must hold a valid SKILL.md named like the skill", async () => {
    const files = validFiles();
    delete files["skills/demo-guide/SKILL.md"];
    expect(await issuePaths(await dirWith(files))).toEqual(["skills[0].path"]);
    const noFile = await dirWith(files);
    await mkdir(join(noFile, "skills/demo-guide"), { recursive: true });
    expect(await issuePaths(noFile)).toEqual(["skills/demo-guide/SKILL.md"]);
    const broken = await dirWith({ ...files, "skills/demo-guide/SKILL.md": "no front matter" });
    expect(await issuePaths(broken)).toEqual(["skills/demo-guide/SKILL.md"]);
  });

  test("a declared logo and a vendored binary must exist", async () => {
    const m = validManifest();
    m.interface = { logo: "assets/logo.svg" };
    m.tools[0].rail = "mcp";
    delete m.tools[0].request;
    m.runtime = { kind: "binary", command: "demo-server", vendored: true };
    const dir = await dirWith(validFiles(m));
    expect((await issuePaths(dir)).sort()).toEqual(["interface.logo", "runtime.vendored"]);
    await mkdir(join(dir, "assets"));
    await writeFile(join(dir, "assets/logo.svg"), "<svg/>");
    await mkdir(join(dir, "bin/linux-x86_64"), { recursive: true });
    await writeFile(join(dir, "bin/linux-x86_64/demo-server"), "");
    expect(await issuePaths(dir)).toEqual([]);
  });

  test("expectedName and expectedVersion mismatches are reported with the other issues", async () => {
    const dir = await dirWith({ ...validFiles(), "stray.txt": "" });
    expect((await issuePaths(dir, { expectedName: "other", expectedVersion: "9.9.9" })).sort()).toEqual([
      "name",
      "stray.txt",
      "version",
    ]);
  });

  test("a path that is not a directory is one issue", async () => {
    const r = await validatePluginDir("/nonexistent/fermix-plugin", { coreVersion: CORE });
    expect(r.ok).toBe(false);
    if (!r.ok) expect(r.errors).toHaveLength(1);
  });
});
