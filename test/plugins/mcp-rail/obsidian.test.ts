import { beforeAll, describe, expect, test } from "bun:test";
import { mkdir, readFile, symlink, writeFile } from "node:fs/promises";
import { join, resolve } from "node:path";
import type { Manifest } from "../../../src/plugins/manifest/schema.ts";
import { createMcpSupervisor, type McpServerHandle } from "../../../src/plugins/mcp-rail/supervisor.ts";
import { cleanupAfterEach } from "../../fixture/cleanup.ts";
import { loadManifest, tempDir } from "./_fixture.ts";

const PLUGIN_DIR = resolve(import.meta.dir, "../../../catalog/plugins/obsidian");
const defer = cleanupAfterEach();

let manifest: Manifest;
beforeAll(async () => {
  manifest = await loadManifest(PLUGIN_DIR, "obsidian");
});

/** The catalog's obsidian plugin over a fresh vault holding one note, with a secret file beside the vault. */
async function obsidian(): Promise<{ handle: McpServerHandle; vault: string; outside: string }> {
  const root = await tempDir("fermix-obsidian-");
  defer(root.remove);
  const vault = join(root.path, "vault");
  await mkdir(join(vault, "Projects"), { recursive: true });
  await writeFile(join(vault, "Projects", "roadmap.md"), "# Roadmap\n- ship the MCP rail\n");
  await writeFile(join(root.path, "secret.md"), "outside the vault\n");
  const supervisor = createMcpSupervisor();
  defer(() => supervisor.stopAll());
  const handle = await supervisor.start({
    name: "obsidian",
    dir: PLUGIN_DIR,
    manifest,
    configValues: { VAULT_PATH: vault },
    env: process.env,
  });
  await handle.ready();
  expect(handle.status).toBe("ready");
  return { handle, vault, outside: root.path };
}

describe("obsidian plugin end to end", () => {
  test("discovers the tools the manifest previews, as obsidian_*", async () => {
    const { handle } = await obsidian();
    const discovered = handle
      .tools()
      .map((t) => t.name)
      .sort();
    expect(discovered).toEqual(manifest.tools.map((t) => t.name).sort());
    expect(discovered.every((n) => n.startsWith("obsidian_"))).toBe(true);
  });

  test("search, read, create, append and list work inside the vault", async () => {
    const { handle, vault } = await obsidian();

    const found = await handle.call("obsidian_search_notes", { query: "mcp rail" });
    expect(JSON.parse(found.content)).toEqual([{ path: "Projects/roadmap.md", lines: ["- ship the MCP rail"] }]);
    expect((await handle.call("obsidian_read_note", { path: "Projects/roadmap" })).content).toContain("# Roadmap");

    expect(await handle.call("obsidian_create_note", { path: "Ideas/plan", content: "first" })).toEqual({
      content: "Created Ideas/plan.md.",
    });
    const again = await handle.call("obsidian_create_note", { path: "Ideas/plan.md", content: "second" });
    expect(again.isError).toBe(true);
    expect(again.content).toContain("already exists");

    expect(
      (await handle.call("obsidian_append_note", { path: "Ideas/plan", content: "more" })).isError,
    ).toBeUndefined();
    expect(await readFile(join(vault, "Ideas", "plan.md"), "utf8")).toBe("first\nmore");
    expect((await handle.call("obsidian_read_note", { path: "Ideas/plan.md" })).content).toBe("first\nmore");

    expect((await handle.call("obsidian_list_notes", {})).content).toBe("Ideas/\nProjects/");
    expect((await handle.call("obsidian_list_notes", { folder: "Projects" })).content).toBe("Projects/roadmap.md");
  });

  test("paths that leave the vault are refused", async () => {
    const { handle, outside } = await obsidian();
    for (const [tool, args] of [
      ["obsidian_read_note", { path: "../secret" }],
      ["obsidian_read_note", { path: "Projects/../../secret.md" }],
      ["obsidian_append_note", { path: "../secret", content: "x" }],
      ["obsidian_create_note", { path: "../escape", content: "x" }],
      ["obsidian_list_notes", { folder: ".." }],
    ] as const) {
      const result = await handle.call(tool, args);
      expect(result.isError).toBe(true);
      expect(result.content).toContain("outside the vault");
    }
    expect(await readFile(join(outside, "secret.md"), "utf8")).toBe("outside the vault\n");
    expect(await Bun.file(join(outside, "escape.md")).exists()).toBe(false);
  });

  test("a link inside the vault that points out of it is refused", async () => {
    const { handle, vault, outside } = await obsidian();
    await symlink(join(outside, "secret.md"), join(vault, "sneaky.md"));
    await symlink(outside, join(vault, "door"));
    expect((await handle.call("obsidian_read_note", { path: "sneaky" })).isError).toBe(true);
    expect((await handle.call("obsidian_create_note", { path: "door/new", content: "x" })).isError).toBe(true);
    expect((await handle.call("obsidian_list_notes", { folder: "door" })).isError).toBe(true);
    expect(await Bun.file(join(outside, "new.md")).exists()).toBe(false);
  });

  test("without VAULT_PATH the tools say how to set it", async () => {
    const supervisor = createMcpSupervisor();
    defer(() => supervisor.stopAll());
    const handle = await supervisor.start({
      name: "obsidian",
      dir: PLUGIN_DIR,
      manifest,
      configValues: {},
      env: process.env,
    });
    await handle.ready();
    const result = await handle.call("obsidian_list_notes", {});
    expect(result.isError).toBe(true);
    expect(result.content).toContain("fermix plugins config set obsidian VAULT_PATH");
  });

  test("a relative VAULT_PATH is refused rather than read against the plugin's folder", async () => {
    const supervisor = createMcpSupervisor();
    defer(() => supervisor.stopAll());
    const handle = await supervisor.start({
      name: "obsidian",
      dir: PLUGIN_DIR,
      manifest,
      configValues: { VAULT_PATH: "src" },
      env: process.env,
    });
    await handle.ready();
    const result = await handle.call("obsidian_list_notes", {});
    expect(result.isError).toBe(true);
    expect(result.content).toContain("must be an absolute path");
  });
});
