import { lstat, mkdir, readdir, readlink, rename } from "node:fs/promises";
import { join } from "node:path";
import type { FermixPaths } from "../../config/paths.ts";
import { isProcessAlive } from "../../fs/lock-files.ts";
import { removeTree, symlinkAtomic, TEMP_SUFFIX } from "./store-files.ts";
import type { RecordFile } from "./store-record.ts";

export type StorePaths = FermixPaths["plugins"];

/** A version moved aside while the same version is reinstalled; see `swapInto`. */
export const REPLACED = /^\.(.+)\.replaced$/;
const LOCK_TEMP = /^\.lock\.(\d+)\.[0-9a-f]{12}$/;

/**
 * Brings the store back to a state installed.json describes, after a crash at any step. installed.json is the
 * source of truth and its rename is an install's commit point: everything before it (staging, the new
 * version's directory, even the `current` flip) is undone or ignored here; the `current` links are made to
 * agree with it. Runs under the store lock, first thing in every mutating operation.
 * Returns the paths (relative to the plugins root) it removed.
 */
export async function repairStore(paths: StorePaths, records: RecordFile): Promise<string[]> {
  const swept: string[] = [];
  await mkdir(paths.staging, { recursive: true, mode: 0o700 });
  for (const leftover of await readdir(paths.staging)) {
    await removeTree(join(paths.staging, leftover));
    swept.push(`staging/${leftover}`);
  }
  for (const entry of await readdir(paths.root)) {
    const lockTemp = LOCK_TEMP.exec(entry);
    if (TEMP_SUFFIX.test(entry) || (lockTemp && !isProcessAlive(Number(lockTemp[1])))) {
      await removeTree(join(paths.root, entry));
      swept.push(entry);
    }
  }
  for (const name of await listDir(paths.installed)) {
    const dir = join(paths.installed, name);
    for (const entry of await readdir(dir)) {
      if (TEMP_SUFFIX.test(entry)) {
        await removeTree(join(dir, entry));
        swept.push(`installed/${name}/${entry}`);
        continue;
      }
      const replaced = REPLACED.exec(entry);
      if (!replaced) continue;
      // Crash between moving the old copy aside and moving the new one in: put the old one back.
      if (await exists(join(dir, replaced[1]!))) {
        await removeTree(join(dir, entry));
        swept.push(`installed/${name}/${entry}`);
      } else {
        await rename(join(dir, entry), join(dir, replaced[1]!));
      }
    }
    const active = records[name]?.version;
    const link = join(dir, "current");
    const target = await readlink(link).catch(() => undefined);
    if (active && target !== active) await symlinkAtomic(active, link);
    // Not in the record: an install that never committed, or an uninstall that did. Nothing may look active.
    if (!active && target !== undefined) await removeTree(link);
  }
  return swept;
}

/** Version directories of one plugin, oldest first by numeric-aware comparison. */
export async function versionDirs(paths: StorePaths, name: string): Promise<string[]> {
  const dir = join(paths.installed, name);
  const out: string[] = [];
  for (const entry of await listDir(dir)) {
    if (entry.startsWith(".") || entry === "current") continue;
    if ((await lstat(join(dir, entry))).isDirectory()) out.push(entry);
  }
  return out.sort((a, b) => a.localeCompare(b, "en", { numeric: true }));
}

export async function listDir(dir: string): Promise<string[]> {
  try {
    return await readdir(dir);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === "ENOENT") return [];
    throw err;
  }
}

export async function exists(path: string): Promise<boolean> {
  return lstat(path).then(
    () => true,
    () => false,
  );
}
