import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";

/** A small valid manifest; tests change one thing at a time. */
export function validManifest(): Record<string, any> {
  return {
    schema_version: 2,
    name: "demo",
    display_name: "Demo",
    description: "A plugin for tests.",
    category: "developer",
    version: "1.2.3",
    min_core_version: "0.1.0",
    plugin_api: 2,
    auth: { type: "oauth2", provider: "demo", scopes: ["read", "write"] },
    config: [{ key: "ALLOW_WRITES", prompt: "Allow writes?", kind: "boolean" }],
    tools: [
      {
        name: "demo_get_item",
        description: "Read one item.",
        read_only: true,
        requires_scopes: ["read"],
        parameters: { type: "object", properties: { id: { type: "string" }, q: { type: "string" } }, required: ["id"] },
        request: {
          url: "https://api.example.com/items/{id}",
          query: { q: "{q}" },
          headers: { Accept: "application/json" },
        },
      },
      {
        name: "demo_create_item",
        description: "Create an item.",
        read_only: false,
        requires_scopes: ["write"],
        requires_setting: "ALLOW_WRITES",
        parameters: { type: "object", properties: { title: { type: "string" } } },
        request: {
          method: "POST",
          url: "https://api.example.com/items",
          body: { item: { title: "{title}" } },
          success: [201],
        },
      },
    ],
    skills: [{ name: "demo-guide", path: "skills/demo-guide" }],
    health_check: { url: "https://api.example.com/me", account_path: "login" },
  };
}

export const CORE = "0.1.0-dev";

/** Writes `files` (path → content) under a fresh temp dir named `name`; returns the plugin dir and a remover. */
export async function pluginDir(
  name: string,
  files: Record<string, string>,
): Promise<{ dir: string; remove: () => Promise<void> }> {
  const base = await mkdtemp(join(tmpdir(), "fermix-manifest-"));
  const dir = join(base, name);
  await mkdir(dir);
  for (const [path, content] of Object.entries(files)) {
    await mkdir(dirname(join(dir, path)), { recursive: true });
    await writeFile(join(dir, path), content);
  }
  return { dir, remove: () => rm(base, { recursive: true, force: true }) };
}

export const SKILL_MD = "---\nname: demo-guide\ndescription: Use when testing.\n---\n\n# Demo\n\nUse the demo tools.\n";

export function validFiles(manifest: Record<string, unknown> = validManifest()): Record<string, string> {
  return {
    "plugin.json": JSON.stringify(manifest, null, 2),
    "skills/demo-guide/SKILL.md": SKILL_MD,
    "README.md": "# Demo\n",
  };
}
