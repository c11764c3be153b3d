import { createHash } from "node:crypto";
import { existsSync } from "node:fs";
import { mkdir, readdir, readFile, rename, rm, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { signArtifact } from "../../trust/sign.ts";
import type { CatalogIndex, CatalogPlugin } from "./catalog-index.ts";
import { PluginPackInvalid, packPluginDir } from "./pack.ts";

export type BuildCatalogOptions = {
  /** Plugin sources, one folder per plugin with a plugin.json (catalog/plugins). */
  sourceDir: string;
  /** Replaced wholesale by index.json, its bundle, and artifacts/ (dist/embed/catalog when built by build.ts). */
  outDir: string;
  privateKeyPem: string;
  /** ISO timestamp for generated_at and published_at; defaults to now. */
  generatedAt?: string;
};

// Just the manifest fields the index repeats. Full validation belongs to the manifest module at install time.
type ManifestSummary = {
  name?: string;
  version?: string;
  display_name?: string;
  description?: string;
  category?: string;
  min_core_version?: string;
  plugin_api?: number;
  interface?: { short_description?: string; developer_name?: string; brand_color?: string; logo?: string };
  auth?: { type?: string; provider?: string };
  runtime?: { kind?: string };
  tools?: { rail?: string }[];
};

const NAME = /^[a-z][a-z0-9_]{0,63}$/;
const VERSION = /^\d+\.\d+\.\d+$/;

/** Packs and signs every plugin under sourceDir, then writes and signs the catalog index. */
export async function buildCatalog(opts: BuildCatalogOptions): Promise<CatalogIndex> {
  const generatedAt = opts.generatedAt ?? new Date().toISOString();
  // Built beside outDir and swapped in at the end, so a concurrent build never embeds a half-written catalog.
  const staging = `${opts.outDir}.staging-${process.pid}`;
  await rm(staging, { recursive: true, force: true });
  await mkdir(join(staging, "artifacts"), { recursive: true });

  const dirs = existsSync(opts.sourceDir) ? await readdir(opts.sourceDir, { withFileTypes: true }) : [];
  const plugins: CatalogPlugin[] = [];
  for (const dirent of dirs.filter((d) => d.isDirectory()).sort((a, b) => (a.name < b.name ? -1 : 1))) {
    const dir = join(opts.sourceDir, dirent.name);
    if (!existsSync(join(dir, "plugin.json"))) continue;
    plugins.push(await buildPlugin(dir, dirent.name, staging, opts.privateKeyPem, generatedAt));
  }

  const index: CatalogIndex = { schema_version: 1, generated_at: generatedAt, plugins };
  const indexBytes = new TextEncoder().encode(`${JSON.stringify(index, null, 2)}\n`);
  await writeFile(join(staging, "index.json"), indexBytes);
  await writeJson(join(staging, "index.json.sigstore.json"), signArtifact(indexBytes, opts.privateKeyPem));
  await rm(opts.outDir, { recursive: true, force: true });
  await rename(staging, opts.outDir);
  return index;
}

async function buildPlugin(
  dir: string,
  dirName: string,
  outDir: string,
  privateKeyPem: string,
  publishedAt: string,
): Promise<CatalogPlugin> {
  const m = JSON.parse(await readFile(join(dir, "plugin.json"), "utf8")) as ManifestSummary;
  // The name and version become file names, so they are checked here even though validation lives elsewhere.
  if (m.name !== dirName || !NAME.test(dirName)) {
    throw PluginPackInvalid(`${dir}/plugin.json: name ${JSON.stringify(m.name)} must equal the folder name`);
  }
  if (!m.version || !VERSION.test(m.version)) {
    throw PluginPackInvalid(`${dir}/plugin.json: version ${JSON.stringify(m.version)} must be x.y.z`);
  }
  const file = `${m.name}-${m.version}.tgz`;
  const bytes = await packPluginDir(dir);
  await writeFile(join(outDir, "artifacts", file), bytes);
  await writeJson(join(outDir, "artifacts", `${file}.sigstore.json`), signArtifact(bytes, privateKeyPem));

  const rails = [...new Set((m.tools ?? []).map((t) => t.rail ?? "http"))].sort();
  return {
    name: m.name,
    display_name: m.display_name ?? m.name,
    category: m.category ?? null,
    description: m.description ?? "",
    short_description: m.interface?.short_description ?? null,
    developer_name: m.interface?.developer_name ?? null,
    brand_color: m.interface?.brand_color ?? null,
    logo: m.interface?.logo ?? null,
    auth_type: m.auth?.type ?? "none",
    auth_provider: m.auth?.provider ?? null,
    rails,
    ...(m.runtime?.kind ? { runtime_kind: m.runtime.kind } : {}),
    latest: m.version,
    yanked: [],
    versions: [
      {
        version: m.version,
        published_at: publishedAt,
        min_core_version: m.min_core_version ?? null,
        plugin_api: m.plugin_api ?? null,
        artifacts: [
          {
            target: "any",
            url: `embedded:artifacts/${file}`,
            sha256: createHash("sha256").update(bytes).digest("hex"),
            sig_url: `embedded:artifacts/${file}.sigstore.json`,
            cert_url: null,
          },
        ],
      },
    ],
  };
}

function writeJson(path: string, value: unknown): Promise<void> {
  return writeFile(path, `${JSON.stringify(value, null, 2)}\n`);
}
