import { createHash } from "node:crypto";
import { chmod, mkdir, open } from "node:fs/promises";
import { dirname, join } from "node:path";
import { Readable, Transform, type TransformCallback } from "node:stream";
import { pipeline } from "node:stream/promises";
import { createGunzip } from "node:zlib";
import * as tar from "tar-stream";
import { isFermixError } from "../../error.ts";
import {
  type ArchiveLimits,
  checkTopLevel,
  DEFAULT_LIMITS,
  type EntryKind,
  maskedMode,
  normalizeEntryName,
  PathLedger,
  PluginArchiveInvalid,
} from "./entry-rules.ts";
import { treeDigest } from "./tree-digest.ts";

export type { ArchiveLimits } from "./entry-rules.ts";

export type ExtractResult = {
  /** Relative POSIX paths of the regular files written, sorted. */
  files: string[];
  /** See tree-digest.ts: identifies the file tree independent of tar order and directory entries. */
  treeDigest: string;
  /** Uncompressed bytes of all files. */
  bytes: number;
};

/** Slices fed to gunzip, so the expansion ratio is judged against what was actually consumed so far. */
const FEED_CHUNK = 64 * 1024;

/**
 * Extracts a gzipped plugin tarball into `destDir`, which must not exist yet. Every entry is judged by the
 * name tar-stream finally reports (after PAX or GNU long-name overrides) before anything is written; only
 * regular files and directories are ever created, with `wx` opens, so nothing can be written through a link
 * or outside `destDir`. On refusal the partial `destDir` is left for the caller to delete.
 */
export async function extractPluginArchive(
  source: ReadableStream<Uint8Array> | Uint8Array,
  destDir: string,
  limits: Partial<ArchiveLimits> = {},
): Promise<ExtractResult> {
  const lim: ArchiveLimits = { ...DEFAULT_LIMITS, ...limits };
  // Non-recursive: fails if destDir exists, so a stale tree can never be merged into.
  await mkdir(destDir, { mode: 0o755 });

  let compressed = 0;
  let inflated = 0;
  // The last 1 KiB of the tar stream: a complete archive ends with two zero blocks.
  let tail = Buffer.alloc(0);

  const feed = Readable.from(
    (async function* () {
      for await (const chunk of chunksOf(source)) {
        for (let at = 0; at < chunk.byteLength; at += FEED_CHUNK) {
          const slice = chunk.subarray(at, at + FEED_CHUNK);
          compressed += slice.byteLength;
          yield slice;
        }
      }
    })(),
  );
  const meter = new Transform({
    transform(chunk: Buffer, _enc: BufferEncoding, done: TransformCallback) {
      inflated += chunk.byteLength;
      if (inflated > lim.expansionFloorBytes && inflated > lim.maxExpansionRatio * compressed) {
        done(
          PluginArchiveInvalid(
            `archive inflates more than ${lim.maxExpansionRatio}× its compressed size (possible gzip bomb)`,
            { rule: "expansion_ratio" },
          ),
        );
        return;
      }
      // Copy out the last KiB only: concatenating whole chunks would copy the entire archive once more.
      tail =
        chunk.byteLength >= 1024 ? Buffer.from(chunk.subarray(-1024)) : Buffer.concat([tail, chunk]).subarray(-1024);
      done(null, chunk);
    },
  });
  const extract = tar.extract();

  // Directories made so far: most files share a parent, and a mkdir per file is most of the syscalls.
  const made = new Set<string>([destDir]);
  const ensureDir = async (dir: string) => {
    if (made.has(dir)) return;
    await ensureDir(dirname(dir));
    await mkdir(dir, { mode: 0o755 }).catch((err: NodeJS.ErrnoException) => {
      if (err.code !== "EEXIST") throw err;
    });
    // The mode given to mkdir is filtered by the umask; plugin directories are 0755 whatever the umask.
    await chmod(dir, 0o755);
    made.add(dir);
  };
  const ledger = new PathLedger();
  const digests: [string, string][] = [];
  let entries = 0;
  let total = 0;

  const consume = async () => {
    for await (const entry of extract) {
      const { header } = entry;
      entries++;
      if (entries > lim.maxEntries) {
        throw PluginArchiveInvalid(`archive has more than ${lim.maxEntries} entries`, { rule: "entry_count" });
      }
      const kind = entryKind(header);
      const path = normalizeEntryName(header.name, kind);
      if (path === "") {
        entry.resume();
        continue;
      }
      checkTopLevel(path, kind, lim.allowRuntimeFiles);
      ledger.claim(path, kind);
      const target = join(destDir, path);
      if (kind === "directory") {
        await ensureDir(target);
        entry.resume();
        continue;
      }
      const declared = header.size ?? 0;
      if (declared > lim.maxFileBytes) throw tooBig(path, lim.maxFileBytes);
      if (total + declared > lim.maxTotalBytes) throw tooMuch(path, lim.maxTotalBytes);
      await ensureDir(dirname(target));
      const hash = createHash("sha256");
      const fd = await open(target, "wx", 0o600);
      let written = 0;
      try {
        for await (const chunk of entry as AsyncIterable<Buffer>) {
          written += chunk.byteLength;
          // The header's size is what tar-stream reads, but PAX may rewrite it: count what actually arrives.
          if (written > lim.maxFileBytes) throw tooBig(path, lim.maxFileBytes);
          if (total + written > lim.maxTotalBytes) throw tooMuch(path, lim.maxTotalBytes);
          hash.update(chunk);
          await fd.write(chunk);
        }
        // Explicit chmod: the open mode is filtered by the umask, and the archive's mode is not to be trusted.
        await fd.chmod(maskedMode(kind, header.mode));
      } finally {
        await fd.close();
      }
      total += written;
      digests.push([path, hash.digest("hex")]);
    }
  };

  const pumping = pipeline(
    feed,
    createGunzip({ chunkSize: 64 * 1024 }),
    meter,
    extract as unknown as NodeJS.WritableStream,
  );
  const consuming = consume();
  const [pumped, consumed] = await Promise.allSettled([
    pumping,
    consuming.catch((err) => {
      // Stop the producers so the pipeline settles instead of waiting on an entry nobody reads.
      feed.destroy();
      extract.destroy();
      throw err;
    }),
  ]);
  // One failure makes the other side fail too ("stream was destroyed"): report the cause. Our own refusals
  // and filesystem errors come from the consumer; everything about the bytes themselves, from the pipeline.
  const failures = [consumed, pumped].flatMap((r) => (r.status === "rejected" ? [r.reason] : []));
  if (failures.length)
    throw asArchiveError(failures.find(isFermixError) ?? failures.find(isSystemError) ?? failures.at(-1));
  if (tail.byteLength < 1024 || tail.some((b) => b !== 0)) {
    throw PluginArchiveInvalid("archive is truncated: no end-of-archive marker", { rule: "truncated" });
  }

  const files = digests.map(([p]) => p).sort();
  return { files, treeDigest: treeDigest(digests), bytes: total };
}

/** `type` is typed as a closed union, but tar-stream reports null for type flags it does not know. */
function entryKind(header: { name: string; type?: string | null; linkname?: string | null }): EntryKind {
  const name = header.name;
  if (header.type === "file") return "file";
  if (header.type === "directory") return "directory";
  const what = header.type ?? "an unknown entry type";
  const link = header.linkname ? ` -> "${header.linkname}"` : "";
  throw PluginArchiveInvalid(
    `archive entry "${name}"${link}: ${what} entries are not allowed (files and directories only)`,
    {
      entry: name,
      rule: "entry_type",
    },
  );
}

function tooBig(path: string, cap: number) {
  return PluginArchiveInvalid(`archive entry "${path}": file is larger than ${cap} bytes`, {
    entry: path,
    rule: "file_size",
  });
}

function tooMuch(path: string, cap: number) {
  return PluginArchiveInvalid(`archive entry "${path}": archive holds more than ${cap} bytes in total`, {
    entry: path,
    rule: "total_size",
  });
}

/** zlib and tar-stream errors are about the bytes the publisher sent: report them as a bad archive. */
function asArchiveError(err: unknown): unknown {
  if (isFermixError(err) || isSystemError(err)) return err;
  const message = err instanceof Error ? err.message : String(err);
  const truncated = /unexpected end|premature/i.test(message);
  return PluginArchiveInvalid(
    truncated ? `archive is truncated: ${message}` : `archive is not a valid gzipped tarball: ${message}`,
    { rule: truncated ? "truncated" : "format" },
    { cause: err },
  );
}

/** A disk-side failure (ENOSPC, EACCES…) is not the archive's fault and keeps its own code. */
function isSystemError(err: unknown): boolean {
  return err instanceof Error && typeof (err as NodeJS.ErrnoException).syscall === "string";
}

async function* chunksOf(source: ReadableStream<Uint8Array> | Uint8Array): AsyncGenerator<Uint8Array> {
  if (source instanceof Uint8Array) {
    yield source;
    return;
  }
  for await (const chunk of source as unknown as AsyncIterable<Uint8Array>) yield chunk;
}
