import type { Dirent } from "node:fs";
import { join, resolve } from "node:path";
import type { Config } from "../config/schema.ts";
import { nodeModule } from "../runtime/host.ts";
import type { Manifest } from "./manifest/schema.ts";

/**
 * `[fermix_core.plugins] dev_local`: plugin authors point fermix at a folder whose immediate subfolders are
 * plugins (a fermix-plugins checkout's plugins/), loaded in place with the install's checks but no signing
 * or packaging. The plugins spec ("For plugin authors") wants every failure loud, so nothing here is
 * skipped quietly: each one becomes a problem that `plugins list|doctor` and `fermix doctor` print.
 */

/** Something under dev_local that did not load; `message` is a whole sentence with the fix. */
export type DevLocalProblem = { folder: string; message: string };

/** A plugin folder under a root, named by its folder; `loadError` when it does not validate. */
export type DevLocalPlugin = { name: string; dir: string; manifest?: Manifest; loadError?: string };

export type DevLocalLoad = { plugins: DevLocalPlugin[]; problems: DevLocalProblem[] };

const KEY = "[fermix_core.plugins] dev_local";

/**
 * The configured roots, whichever shape config.toml uses (one path or a list); every reader of dev_local
 * goes through here. The schema already refused relative paths.
 *
 * @example
 * devLocalRoots(parseConfig('[fermix_core.plugins]\ndev_local = "/src/fermix-plugins/plugins"', file))
 * // → ["/src/fermix-plugins/plugins"]
 */
export function devLocalRoots(config: Config): string[] {
  const value = config.fermix_core?.plugins?.dev_local;
  if (value === undefined) return [];
  return [...new Set((typeof value === "string" ? [value] : value).map((p) => resolve(p)))];
}

/**
 * Whether config.toml enables a plugin or names dev_local folders. Nothing about plugins is loaded or read
 * otherwise: the composition root, the plugin host and doctor all ask this one question.
 */
export function pluginsConfigured(config: Config): boolean {
  return Boolean(config.fermix_core?.plugins?.enabled?.length) || devLocalRoots(config).length > 0;
}

/**
 * Validates every plugin folder under the roots. `installed` are the store's names: a folder that takes a
 * bundled or installed name is not loaded (that plugin keeps its place), and neither is a second folder
 * with a name an earlier root already gave.
 */
export async function loadDevLocal(
  roots: readonly string[],
  opts: { installed: readonly string[]; coreVersion: string },
): Promise<DevLocalLoad> {
  // Loaded here, not at the top: app.ts imports devLocalRoots on every start, and a plain `fermix ask`
  // should not evaluate the manifest schema.
  const [{ BUNDLED_PLUGINS }, { validatePluginDir }] = await Promise.all([
    import("./manifest/checks.ts"),
    import("./manifest/validate.ts"),
  ]);
  const bundled: readonly string[] = BUNDLED_PLUGINS;
  const plugins: DevLocalPlugin[] = [];
  const problems: DevLocalProblem[] = [];
  const taken = new Map<string, string>();
  for (const root of roots) {
    const listed = await listRoot(root);
    if (!Array.isArray(listed)) {
      problems.push(listed);
      continue;
    }
    for (const entry of listed) {
      if (entry.name.startsWith(".")) continue;
      const dir = join(root, entry.name);
      if (entry.isSymbolicLink()) {
        // validatePluginDir refuses a link as a plugin's root too; saying so here names the way out.
        problems.push({
          folder: dir,
          message: `${dir} is a symlink; ${KEY} loads real folders only, so move the plugin folder there or add the folder that holds it to ${KEY}`,
        });
        continue;
      }
      if (!entry.isDirectory()) continue;
      const collision = collisionWith(entry.name, dir, { bundled, installed: opts.installed, taken });
      if (collision) {
        problems.push({ folder: dir, message: collision });
        continue;
      }
      taken.set(entry.name, dir);
      // As `plugins validate` insists: the folder's name is the plugin's name.
      const loaded = await validatePluginDir(dir, { expectedName: entry.name, coreVersion: opts.coreVersion }).catch(
        (err: NodeJS.ErrnoException) => err,
      );
      if (loaded instanceof Error) {
        // One unreadable folder (EACCES inside it) must not take the whole plugin list down with it.
        const why = `cannot be read (${loaded.code ?? loaded.message})`;
        plugins.push({ name: entry.name, dir, loadError: why });
        problems.push({ folder: dir, message: `${dir} ${why}; let this user read it` });
        continue;
      }
      if (loaded.ok) {
        plugins.push({ name: entry.name, dir, manifest: loaded.manifest });
        continue;
      }
      const issues = loaded.errors.map((e) => `${e.path}: ${e.message}`).join("; ");
      plugins.push({ name: entry.name, dir, loadError: issues });
      problems.push({
        folder: dir,
        message: `${dir} does not load: ${issues} (fix it, then fermix plugins validate ${dir})`,
      });
    }
  }
  return { plugins, problems };
}

async function listRoot(root: string): Promise<Dirent[] | DevLocalProblem> {
  try {
    // node:fs/promises only where dev_local is set: its import costs every in-process ask (issue 31).
    const { readdir } = nodeModule<typeof import("node:fs/promises")>("node:fs/promises");
    const entries = await readdir(root, { withFileTypes: true });
    // readdir's order is the file system's; rows and collisions should not depend on it.
    return entries.sort((a, b) => a.name.localeCompare(b.name));
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    const what =
      code === "ENOENT"
        ? "does not exist"
        : code === "ENOTDIR"
          ? "is not a folder"
          : `cannot be read (${code ?? (err as Error).message})`;
    return {
      folder: root,
      message: `${root} (${KEY} in config.toml) ${what}; point ${KEY} at the folder whose subfolders are plugins, or remove it`,
    };
  }
}

function collisionWith(
  name: string,
  dir: string,
  names: { bundled: readonly string[]; installed: readonly string[]; taken: ReadonlyMap<string, string> },
): string | undefined {
  const { bundled, installed, taken } = names;
  const rename = "rename the folder and the name in its plugin.json";
  if (bundled.includes(name))
    return `${dir} is not loaded: ${name} is a bundled plugin, which keeps its place; ${rename}`;
  if (installed.includes(name))
    return `${dir} is not loaded: ${name} is installed, and the installed plugin keeps its place; ${rename}, or fermix plugins uninstall ${name}`;
  const earlier = taken.get(name);
  if (earlier)
    return `${dir} is not loaded: ${earlier} (also under ${KEY}) is named ${name} too and keeps its place; ${rename}, or drop one of the roots`;
  return undefined;
}
