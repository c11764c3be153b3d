import { describe, expect, test } from "bun:test";
import { join } from "node:path";
import { runValidate } from "../../../src/cli/plugins-validate.ts";
import { cleanupAfterEach } from "../../fixture/cleanup.ts";
import { pluginDir, validFiles, validManifest } from "./_fixture.ts";

const CATALOG = join(import.meta.dir, "../../../catalog/plugins");
const defer = cleanupAfterEach();

async function run(dir: string, json = false): Promise<{ code: number; out: string; err: string }> {
  let out = "";
  let err = "";
  const code = await runValidate(dir, json, {
    out: async (t) => {
      out += t;
    },
    err: async (t) => {
      err += t;
    },
  });
  return { code, out, err };
}

async function brokenDemo(): Promise<string> {
  const m = validManifest();
  m.tools[0].request.url = "http://api.example.com/items/{id}";
  m.tools[1].name = "create_item";
  const { dir, remove } = await pluginDir("demo", { ...validFiles(m), "notes.txt": "" });
  defer(remove);
  return dir;
}

describe("fermix plugins validate", () => {
  test("a valid plugin prints one ok line and exits 0", async () => {
    expect(await run(join(CATALOG, "github"))).toEqual({
      code: 0,
      out: "ok: github 1.0.0 (10 tools, rail http, auth oauth2)\n",
      err: "",
    });
    expect((await run(join(CATALOG, "obsidian"))).out).toBe("ok: obsidian 1.0.0 (5 tools, rail mcp, auth none)\n");
  });

  test("issues print one line each, prefixed with the file, and exit 1", async () => {
    const dir = await brokenDemo();
    const r = await run(dir);
    expect(r.code).toBe(1);
    expect(r.out).toBe("");
    expect(r.err).toBe(
      [
        'plugin.json: tools[0].request.url: must be https (got "http://api.example.com/items/{id}")',
        'plugin.json: tools[1].name: must start with "demo_" (got "create_item")',
        "notes.txt: is not allowed at the plugin's root (allowed: plugin.json, skills, assets, bin, src, CHANGELOG.md, README.md, LICENSE)",
        `fermix: ${dir}: 3 problems in the plugin`,
        "",
      ].join("\n"),
    );
  });

  test("the directory's name must be the plugin's name", async () => {
    const { dir, remove } = await pluginDir("renamed", validFiles());
    defer(remove);
    const r = await run(dir);
    expect(r.code).toBe(1);
    expect(r.err).toStartWith('plugin.json: name: must be "renamed"');
  });

  test("--json prints the typed envelope with the issues", async () => {
    const ok = await run(join(CATALOG, "slack"), true);
    expect(ok.code).toBe(0);
    expect(JSON.parse(ok.out)).toEqual({
      schema_version: 1,
      ok: true,
      result: { name: "slack", version: "1.0.0", tools: 6, rails: ["http"], auth: "api_key" },
    });
    const dir = await brokenDemo();
    const bad = await run(dir, true);
    expect(bad.code).toBe(1);
    const env = JSON.parse(bad.out);
    expect(env).toMatchObject({ schema_version: 1, ok: false, error: { code: "plugin_invalid" } });
    expect(env.error.data.issues).toEqual([
      { path: "tools[0].request.url", message: 'must be https (got "http://api.example.com/items/{id}")' },
      { path: "tools[1].name", message: 'must start with "demo_" (got "create_item")' },
      expect.objectContaining({ path: "notes.txt", file: true }),
    ]);
  });
});
