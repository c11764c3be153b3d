import { type Dirent, readdirSync, statSync } from "node:fs";
import { join } from "node:path";
import { nodeModule } from "../runtime/host.ts";
import { byCodeUnits } from "./name-order.ts";

export type SkillSource = "bundled" | "home" | "plugin";

/**
 * One skill folder as a source offers it, before its SKILL.md is read. Plugins hand their skills to the
 * catalog in this shape, so the catalog never needs to know where a source keeps its files.
 */
export type SkillFolder = {
  /** The folder's name, which the skill's name must equal. */
  name: string;
  source: SkillSource;
  /** How the folder is named to people: `skills/<name>` inside the binary, an absolute path on disk. */
  location: string;
  /** Its Markdown files relative to the folder, with `/` separators, SKILL.md included when present. */
  files: string[];
  /** Reads one of `files`; never called with anything else. */
  read(file: string): Promise<string>;
  /** The plugin that ships it (plugin skills only). */
  plugin?: string;
};

/** What embedded assets offer (src/embedded/assets.ts in the binary; a fake in tests). */
export type EmbeddedFiles = { list(): string[]; read(path: string): Promise<string> };

/** A scan result: the folders found, and what could not be scanned at all. */
export type SourceScan = { folders: SkillFolder[]; problems: { file: string; reason: string }[] };

/** A SKILL.md or reference file larger than this is refused: it is read into the model's context whole. */
export const MAX_SKILL_FILE_BYTES = 256 * 1024;
/** Bounds a home folder that is not really a skill (a checkout, a data dump) instead of walking all of it. */
const MAX_FILES_PER_SKILL = 200;
const MAX_DEPTH = 3;

/** `skills/<name>/**.md` among the embedded files: the skills bundled with this binary. */
export function bundledFolders(embedded: EmbeddedFiles): SkillFolder[] {
  const byName = new Map<string, string[]>();
  for (const path of embedded.list()) {
    const parts = path.split(/[\\/]/);
    if (parts[0] !== "skills" || parts.length < 3 || !parts.at(-1)!.endsWith(".md")) continue;
    const name = parts[1]!;
    if (name.startsWith(".")) continue;
    const files = byName.get(name) ?? [];
    files.push(parts.slice(2).join("/"));
    byName.set(name, files);
  }
  return [...byName].map(([name, files]) => ({
    name,
    source: "bundled",
    location: `skills/${name}`,
    files: files.sort(),
    read: (file) => embedded.read(`skills/${name}/${file}`),
  }));
}

/**
 * `$FERMIX_HOME/skills/<name>/`: the owner's own skills. A missing folder is simply no skills; a folder
 * that cannot be read is a problem to report, never a reason to stop loading the others.
 */
export function homeFolders(dir: string): SourceScan {
  let entries: Dirent[];
  try {
    entries = readdirSync(dir, { withFileTypes: true });
  } catch (err: any) {
    if (err?.code === "ENOENT") return { folders: [], problems: [] };
    return { folders: [], problems: [{ file: dir, reason: `cannot read the skills folder: ${err?.message ?? err}` }] };
  }
  const folders: SkillFolder[] = [];
  for (const entry of entries.sort((a, b) => byCodeUnits(a.name, b.name))) {
    // Dot folders are ours (an interrupted skill_create) or an editor's; loose files are not skills.
    if (entry.name.startsWith(".")) continue;
    const path = join(dir, entry.name);
    // A symlinked skill folder is fine (a skill kept in its own repository); stat follows it once.
    if (!isDirectory(path)) continue;
    folders.push({
      name: entry.name,
      source: "home",
      location: path,
      files: markdownFiles(path),
      read: (file) => readCapped(join(path, file)),
    });
  }
  return { folders, problems: [] };
}

/** A plugin's declared skills: each `{ name, path }` of its manifest, a folder inside the plugin. */
export type PluginSkills = { plugin: string; dir: string; skills: ReadonlyArray<{ name: string; path: string }> };

/**
 * The skill folders of plugins (installed or dev_local), read in place. The manifest's checks already made each
 * path a folder inside the plugin; a folder that has gone missing simply offers no files (its SKILL.md is then
 * reported missing, like any broken skill).
 */
export function pluginFolders(plugins: readonly PluginSkills[]): SkillFolder[] {
  return plugins.flatMap((plugin) =>
    plugin.skills.map((skill): SkillFolder => {
      const path = join(plugin.dir, skill.path);
      return {
        name: skill.name,
        source: "plugin",
        plugin: plugin.plugin,
        location: path,
        files: isDirectory(path) ? markdownFiles(path) : [],
        read: (file) => readCapped(join(path, file)),
      };
    }),
  );
}

function isDirectory(path: string): boolean {
  try {
    return statSync(path).isDirectory();
  } catch {
    return false;
  }
}

/** `.md` files under a skill folder, a few levels deep; nested symlinked folders are not followed (no loops). */
function markdownFiles(root: string): string[] {
  const out: string[] = [];
  const walk = (dir: string, prefix: string, depth: number) => {
    let entries: Dirent[];
    try {
      entries = readdirSync(dir, { withFileTypes: true });
    } catch {
      return;
    }
    for (const entry of entries.sort((a, b) => byCodeUnits(a.name, b.name))) {
      if (out.length >= MAX_FILES_PER_SKILL || entry.name.startsWith(".")) continue;
      const rel = prefix ? `${prefix}/${entry.name}` : entry.name;
      if (entry.isDirectory() && depth < MAX_DEPTH) walk(join(dir, entry.name), rel, depth + 1);
      else if ((entry.isFile() || entry.isSymbolicLink()) && entry.name.endsWith(".md")) out.push(rel);
    }
  };
  walk(root, "", 1);
  return out;
}

async function readCapped(path: string): Promise<string> {
  const size = statSync(path).size;
  if (size > MAX_SKILL_FILE_BYTES) {
    throw new Error(`${path} is ${size} bytes; a skill file may have at most ${MAX_SKILL_FILE_BYTES}`);
  }
  // node:fs/promises on first use: a home skill is rare, and the import costs every in-process ask (issue 31).
  return nodeModule<typeof import("node:fs/promises")>("node:fs/promises").readFile(path, "utf8");
}
