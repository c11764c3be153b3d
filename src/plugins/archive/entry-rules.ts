import { defineError } from "../../error.ts";
import { RUNTIME_TOP_LEVEL_ENTRIES } from "../manifest/validate.ts";

export const PluginArchiveInvalid = defineError<{ entry?: string; rule: string }>("plugin_archive_invalid");

export type ArchiveLimits = {
  /** Largest single file, uncompressed. */
  maxFileBytes: number;
  /** Sum of all file sizes, uncompressed. */
  maxTotalBytes: number;
  /** Entries of any kind, directories included. */
  maxEntries: number;
  /** A gzip stream that inflates more than this many times its compressed size… */
  maxExpansionRatio: number;
  /** …is refused once it has also produced this many bytes (small archives legitimately compress well). */
  expansionFloorBytes: number;
  /** package.json and lockfiles are only allowed at the top level of a plugin that declares a runtime. */
  allowRuntimeFiles: boolean;
};

const MiB = 1024 * 1024;

export const DEFAULT_LIMITS: ArchiveLimits = {
  maxFileBytes: 20 * MiB,
  maxTotalBytes: 100 * MiB,
  maxEntries: 10_000,
  maxExpansionRatio: 100,
  expansionFloorBytes: 10 * MiB,
  allowRuntimeFiles: false,
};

/** Top-level names a plugin tarball may hold, and what kind each must be. */
const TOP_LEVEL: Record<string, "file" | "directory"> = {
  "plugin.json": "file",
  skills: "directory",
  assets: "directory",
  bin: "directory",
  src: "directory",
  "CHANGELOG.md": "file",
  "README.md": "file",
  LICENSE: "file",
};

/**
 * The dependency manifests and lockfiles a plugin with a runtime may carry at its root: the very list
 * `plugins validate` accepts, so a folder that validates also installs.
 */
export const RUNTIME_FILES: readonly string[] = RUNTIME_TOP_LEVEL_ENTRIES;

export type EntryKind = "file" | "directory";

/**
 * Turns the name tar-stream reports (after any PAX/GNU long-name override) into a relative POSIX path, or
 * refuses it. Returns "" only for the archive root itself (`./`), which `tar -C dir .` always emits and
 * which creates nothing.
 */
export function normalizeEntryName(raw: string, kind: EntryKind): string {
  const refuse = (rule: string) => PluginArchiveInvalid(`archive entry "${raw}": ${rule}`, { entry: raw, rule });
  if (raw.includes("\\")) throw refuse("backslashes are not allowed in paths (Windows-style path)");
  // biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are exactly what is refused
  if (/[\u0000-\u001f\u007f]/.test(raw)) throw refuse("control characters are not allowed in paths");
  if (raw.startsWith("/")) throw refuse("absolute paths are not allowed");
  if (/^[A-Za-z]:/.test(raw)) throw refuse("drive-letter paths are not allowed (Windows-style path)");

  let name = raw;
  while (name.startsWith("./")) name = name.slice(2);
  if (name.endsWith("/")) {
    // Old tar marks directories with a trailing slash only; tar-stream still reports such entries as files.
    if (kind !== "directory") throw refuse("a file name cannot end with '/'");
    name = name.slice(0, -1);
  }
  if (name === "" || name === ".") {
    if (kind === "directory") return "";
    throw refuse("empty name");
  }
  for (const segment of name.split("/")) {
    if (segment === "..") throw refuse("'..' segments are not allowed");
    if (segment === "" || segment === ".") throw refuse("empty or '.' segments are not allowed");
  }
  return name;
}

/** Judges the first path segment against the plugin layout. */
export function checkTopLevel(path: string, kind: EntryKind, allowRuntimeFiles: boolean): void {
  const slash = path.indexOf("/");
  const top = slash === -1 ? path : path.slice(0, slash);
  // Anything below a top-level name makes that name a directory.
  const topKind: EntryKind = slash === -1 ? kind : "directory";
  const expected = TOP_LEVEL[top] ?? (allowRuntimeFiles && RUNTIME_FILES.includes(top) ? "file" : undefined);
  if (!expected) {
    const hint = RUNTIME_FILES.includes(top) ? " (runtime files need a plugin that declares a runtime)" : "";
    throw PluginArchiveInvalid(`archive entry "${path}": "${top}" is not an allowed top-level entry${hint}`, {
      entry: path,
      rule: "top_level",
    });
  }
  if (expected !== topKind) {
    throw PluginArchiveInvalid(`archive entry "${path}": "${top}" must be a ${expected}`, {
      entry: path,
      rule: "top_level_kind",
    });
  }
}

/**
 * Remembers every path the archive creates (explicitly or as a parent) so that duplicates, file/directory
 * clashes and names that would land on the same inode on a case-insensitive or normalising filesystem
 * (macOS, Windows) are refused before anything is written.
 */
export class PathLedger {
  private kinds = new Map<string, EntryKind>();
  private explicit = new Set<string>();
  private folded = new Map<string, string>();

  claim(path: string, kind: EntryKind): void {
    if (this.explicit.has(path)) this.fail(path, "duplicate", "duplicate entry");
    const segments = path.split("/");
    for (let i = 1; i <= segments.length; i++) {
      const prefix = segments.slice(0, i).join("/");
      const prefixKind: EntryKind = i === segments.length ? kind : "directory";
      const known = this.kinds.get(prefix);
      if (known && known !== prefixKind) {
        this.fail(path, "kind_clash", `"${prefix}" is both a file and a directory`);
      }
      const key = prefix.normalize("NFC").toLowerCase();
      const other = this.folded.get(key);
      if (other !== undefined && other !== prefix) {
        this.fail(path, "collision", `"${prefix}" collides with "${other}" (case or Unicode normalisation)`);
      }
      this.folded.set(key, prefix);
      this.kinds.set(prefix, prefixKind);
    }
    this.explicit.add(path);
  }

  private fail(path: string, rule: string, why: string): never {
    throw PluginArchiveInvalid(`archive entry "${path}": ${why}`, { entry: path, rule });
  }
}

/** Files keep only "executable or not"; no setuid, sticky or group/world write from an archive. */
export function maskedMode(kind: EntryKind, mode: number | undefined): number {
  if (kind === "directory") return 0o755;
  return (mode ?? 0) & 0o111 ? 0o755 : 0o644;
}
