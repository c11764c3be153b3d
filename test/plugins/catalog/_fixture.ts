import { chmod, mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { gunzipSync } from "node:zlib";
import { extract, type Header } from "tar-stream";

/** A temp dir removed when the test's `await using` scope ends. */
export async function tempDir(): Promise<{ path: string } & AsyncDisposable> {
  const path = await mkdtemp(join(tmpdir(), "fermix-catalog-"));
  return { path, [Symbol.asyncDispose]: () => rm(path, { recursive: true, force: true }) };
}

/** Writes a small plugin source folder: a manifest, a skill, and an executable under bin/. */
export async function writeFixturePlugin(sourceDir: string, name = "weather_demo", version = "1.2.3"): Promise<string> {
  const dir = join(sourceDir, name);
  await mkdir(join(dir, "skills", "forecast"), { recursive: true });
  await mkdir(join(dir, "bin"), { recursive: true });
  const manifest = {
    schema_version: 2,
    name,
    version,
    display_name: "Weather demo",
    description: "Forecasts for a test.",
    category: "productivity",
    min_core_version: "0.1.0",
    plugin_api: 2,
    interface: { short_description: "Forecasts", developer_name: "fermix tests", brand_color: "#336699" },
    auth: { type: "api_key" },
    runtime: { kind: "node", command: "node" },
    tools: [{ name: `${name}_now` }, { name: `${name}_mcp`, rail: "mcp" }],
  };
  await writeFile(join(dir, "plugin.json"), JSON.stringify(manifest, null, 2));
  await writeFile(join(dir, "skills", "forecast", "SKILL.md"), "# Forecast\n");
  await writeFile(join(dir, "bin", "run"), "#!/bin/sh\necho hi\n");
  await chmod(join(dir, "bin", "run"), 0o700);
  await writeFile(join(dir, "README.md"), "readme\n");
  await chmod(join(dir, "README.md"), 0o600);
  return dir;
}

/** Lists a .tgz's entries as tar-stream reports them. */
export async function listTgz(bytes: Uint8Array): Promise<Header[]> {
  const ex = extract();
  const headers: Header[] = [];
  const done = (async () => {
    for await (const entry of ex) {
      headers.push(entry.header);
      entry.resume();
    }
  })();
  ex.end(gunzipSync(bytes));
  await done;
  return headers;
}
