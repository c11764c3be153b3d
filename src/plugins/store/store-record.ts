import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { defineError } from "../../error.ts";
import { writeFileAtomic } from "./store-files.ts";

export const PluginStoreCorrupt = defineError<{ path: string }>("plugin_store_corrupt");
export const PluginNameInvalid = defineError<{ name: string; version?: string }>("plugin_name_invalid");

/** One plugin's entry in installed.json: the version that is active and what was verified about it. */
export type InstalledRecord = {
  name: string;
  version: string;
  /** sha256 of the artifact as downloaded. */
  sha256: string;
  /** See archive/tree-digest.ts. */
  tree_digest: string;
  plugin_api: number;
  min_core_version: string;
  /** ISO time of the install (or re-activation) that verified this version. */
  verified_at: string;
  /** The version that was active before this one: what a rollback returns to and what gc keeps. */
  previous?: string;
};

export type RecordEntry = Omit<InstalledRecord, "name">;
export type RecordFile = Record<string, RecordEntry>;

// Names and versions become path segments: keep them to a shape that can never climb out of installed/ or
// clash with the store's own hidden files and the `current` link (versions start with a digit).
const NAME = /^[a-z0-9][a-z0-9._-]{0,63}$/;
const VERSION = /^[0-9][0-9A-Za-z.+-]{0,63}$/;

export function checkNameAndVersion(name: string, version?: string): void {
  if (!NAME.test(name) || name.includes("..")) {
    throw PluginNameInvalid(`"${name}" is not a valid plugin name`, { name });
  }
  if (version !== undefined && (!VERSION.test(version) || version.includes(".."))) {
    throw PluginNameInvalid(`"${version}" is not a valid version for plugin "${name}"`, { name, version });
  }
}

export async function readRecords(path: string): Promise<RecordFile> {
  let text: string;
  try {
    text = await readFile(path, "utf8");
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === "ENOENT") return {};
    throw err;
  }
  try {
    const parsed = JSON.parse(text) as unknown;
    if (parsed && typeof parsed === "object" && !Array.isArray(parsed)) return parsed as RecordFile;
  } catch {}
  // Only atomic renames write this file, so a torn one means someone else edited it.
  throw PluginStoreCorrupt(`${path} is not a JSON object; reinstall the plugins or restore it`, { path });
}

export async function writeRecords(path: string, records: RecordFile): Promise<void> {
  const sorted = Object.fromEntries(Object.entries(records).sort(([a], [b]) => (a < b ? -1 : 1)));
  await writeFileAtomic(path, `${JSON.stringify(sorted, null, 2)}\n`);
}

export function toRecord(name: string, entry: RecordEntry): InstalledRecord {
  return { name, ...entry };
}

export function fromRecord(record: InstalledRecord): RecordEntry {
  const { name: _name, ...entry } = record;
  return entry;
}

/**
 * Each installed version keeps what was verified about it beside its directory (hidden, so never taken for a
 * version), so a rollback can restore the full record without the original artifact.
 */
export function versionMetaPath(installed: string, name: string, version: string): string {
  return join(installed, name, `.${version}.json`);
}

export async function readVersionMeta(path: string): Promise<RecordEntry | undefined> {
  try {
    return JSON.parse(await readFile(path, "utf8")) as RecordEntry;
  } catch {
    return undefined;
  }
}
