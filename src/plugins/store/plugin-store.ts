import { mkdir } from "node:fs/promises";
import { join } from "node:path";
import { defineError } from "../../error.ts";
import { treeDigestOfDir } from "../archive/tree-digest.ts";
import type { InstallInput } from "./install.ts";
import { removeTree, symlinkAtomic } from "./store-files.ts";
import { acquireStoreLock } from "./store-lock.ts";
import {
  checkNameAndVersion,
  fromRecord,
  type InstalledRecord,
  PluginStoreCorrupt,
  readRecords,
  readVersionMeta,
  toRecord,
  versionMetaPath,
  writeRecords,
} from "./store-record.ts";
import { exists, listDir, repairStore, type StorePaths, versionDirs } from "./store-repair.ts";

export const PluginNotInstalled = defineError<{ name: string; version?: string }>("plugin_not_installed");

export type ActivePlugin = { dir: string; record: InstalledRecord };
export type GcReport = {
  /** Versions deleted: neither active nor the one rollback target. */
  removed: { name: string; version: string }[];
  /** Staging and temp leftovers of interrupted operations, relative to the plugins root. */
  swept: string[];
};

export type PluginStore = {
  install(input: InstallInput): Promise<InstalledRecord>;
  current(name: string): Promise<ActivePlugin | undefined>;
  list(): Promise<ActivePlugin[]>;
  versions(name: string): Promise<string[]>;
  activate(name: string, version: string): Promise<InstalledRecord>;
  uninstall(name: string): Promise<string[]>;
  gc(): Promise<GcReport>;
};

export type PluginStoreDeps = {
  paths: StorePaths;
  now?: () => number;
  /** How long a mutating call waits for another process's install before failing with plugin_store_busy. */
  lockTimeoutMs?: number;
};

/**
 * The versioned plugin store under `$FERMIX_HOME/plugins`:
 *
 *   installed/<name>/<version>/   verified trees, never modified in place
 *   installed/<name>/.<version>.json   what was verified about each version (for rollback)
 *   installed/<name>/current -> <version>
 *   installed.json   { [name]: record } — the source of truth and every change's commit point
 *   staging/   per-install scratch, swept by the next mutating call
 *
 * Reads take no lock and follow installed.json only, so a `current` link left ahead of it by a crash is
 * ignored until the next mutating call repairs it. Mutating calls hold the cross-process lock.
 */
export function createPluginStore(deps: PluginStoreDeps): PluginStore {
  const { paths } = deps;
  const now = deps.now ?? Date.now;
  const lockTimeoutMs = deps.lockTimeoutMs ?? 15_000;

  async function locked<T>(body: () => Promise<T>): Promise<T> {
    await mkdirRoot(paths);
    const release = await acquireStoreLock(paths.lock, lockTimeoutMs);
    try {
      return await body();
    } finally {
      release();
    }
  }

  async function current(name: string): Promise<ActivePlugin | undefined> {
    const entry = (await readRecords(paths.record))[name];
    if (!entry) return undefined;
    const base = join(paths.installed, name);
    // The aside copy exists only between the two renames of a same-version reinstall that crashed.
    for (const dir of [join(base, entry.version), join(base, `.${entry.version}.replaced`)]) {
      if (await exists(dir)) return { dir, record: toRecord(name, entry) };
    }
    return undefined;
  }

  return {
    async install(input) {
      // The install pipeline (tar, extraction, digests) loads only for an install, not for reading the store.
      const { checkInstallInput, runInstall } = await import("./install.ts");
      checkInstallInput(input);
      return locked(async () => {
        // Sweep what a crashed predecessor left before making new scratch; the pipeline reports "locked" after.
        await repairStore(paths, await readRecords(paths.record));
        return runInstall(paths, input, now);
      });
    },

    current,

    async list() {
      const names = Object.keys(await readRecords(paths.record)).sort();
      const active = await Promise.all(names.map((name) => current(name)));
      return active.filter((a): a is ActivePlugin => a !== undefined);
    },

    async versions(name) {
      checkNameAndVersion(name);
      return versionDirs(paths, name);
    },

    async activate(name, version) {
      checkNameAndVersion(name, version);
      return locked(async () => {
        const records = await readRecords(paths.record);
        await repairStore(paths, records);
        const before = records[name];
        const dir = join(paths.installed, name, version);
        if (!before) throw PluginNotInstalled(`plugin "${name}" is not installed`, { name });
        if (!(await exists(dir))) {
          throw PluginNotInstalled(
            `${name}@${version} is not installed; installed: ${(await versionDirs(paths, name)).join(", ")}`,
            {
              name,
              version,
            },
          );
        }
        if (before.version === version) return toRecord(name, before);
        const meta = await readVersionMeta(versionMetaPath(paths.installed, name, version));
        // The tree is re-hashed so a rollback can never activate something other than what was verified.
        if (!meta || meta.version !== version || (await treeDigestOfDir(dir)) !== meta.tree_digest) {
          throw PluginStoreCorrupt(`${name}@${version} does not match what was verified at install; reinstall it`, {
            path: dir,
          });
        }
        const record: InstalledRecord = { ...toRecord(name, meta), previous: before.version };
        await symlinkAtomic(version, join(paths.installed, name, "current"));
        await writeRecords(paths.record, { ...records, [name]: fromRecord(record) });
        return record;
      });
    },

    async uninstall(name) {
      checkNameAndVersion(name);
      return locked(async () => {
        const records = await readRecords(paths.record);
        await repairStore(paths, records);
        const versions = await versionDirs(paths, name);
        if (!records[name] && versions.length === 0) {
          throw PluginNotInstalled(`plugin "${name}" is not installed`, { name });
        }
        // Record first: once it is gone the plugin is uninstalled, and a crash leaves only files for gc.
        const { [name]: _gone, ...rest } = records;
        await writeRecords(paths.record, rest);
        await removeTree(join(paths.installed, name));
        return versions;
      });
    },

    async gc() {
      return locked(async () => {
        const records = await readRecords(paths.record);
        const swept = await repairStore(paths, records);
        const removed: GcReport["removed"] = [];
        for (const name of await listDir(paths.installed)) {
          const entry = records[name];
          const keep = new Set([entry?.version, entry?.previous].filter((v): v is string => v !== undefined));
          const versions = await versionDirs(paths, name);
          for (const version of versions.filter((v) => !keep.has(v))) {
            await removeTree(join(paths.installed, name, version));
            await removeTree(versionMetaPath(paths.installed, name, version));
            removed.push({ name, version });
          }
          // Metadata whose version directory is gone: an install that crashed between the two writes.
          const kept = new Set(await versionDirs(paths, name));
          for (const file of await listDir(join(paths.installed, name))) {
            const meta = /^\.(.+)\.json$/.exec(file);
            if (meta && !kept.has(meta[1]!)) {
              await removeTree(join(paths.installed, name, file));
              swept.push(`installed/${name}/${file}`);
            }
          }
          // A plugin directory with nothing recorded is an install that never committed.
          if (!entry) {
            await removeTree(join(paths.installed, name));
            if (versions.length === 0) swept.push(`installed/${name}`);
          }
        }
        return { removed, swept };
      });
    },
  };
}

async function mkdirRoot(paths: StorePaths): Promise<void> {
  await mkdir(paths.installed, { recursive: true, mode: 0o755 });
  await mkdir(paths.staging, { recursive: true, mode: 0o700 });
}
