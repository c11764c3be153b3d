import { createHash, randomBytes } from "node:crypto";
import { open, rename, rm, symlink } from "node:fs/promises";
import { basename, dirname, join } from "node:path";

/** Temp names every sweep recognises: hidden, with a random suffix, next to what they will replace. */
export const TEMP_SUFFIX = /\.tmp-[0-9a-f]{12}$/;

export function tempNameFor(path: string): string {
  return join(dirname(path), `.${basename(path)}.tmp-${randomBytes(6).toString("hex")}`);
}

/** Write-to-temp, fsync, rename: readers see the old file or the new one, never a torn one. */
export async function writeFileAtomic(path: string, data: string): Promise<void> {
  const temp = tempNameFor(path);
  const fd = await open(temp, "wx", 0o644);
  try {
    await fd.writeFile(data);
    await fd.sync();
  } finally {
    await fd.close();
  }
  await rename(temp, path);
  await syncDir(dirname(path));
}

/** rename(2) replaces a symlink atomically; unlink-then-symlink would leave a window with no link at all. */
export async function symlinkAtomic(target: string, path: string): Promise<void> {
  const temp = tempNameFor(path);
  await symlink(target, temp);
  await rename(temp, path);
  await syncDir(dirname(path));
}

/** Makes renames in `dir` durable; best effort, some filesystems refuse to fsync a directory. */
export async function syncDir(dir: string): Promise<void> {
  try {
    const fd = await open(dir, "r");
    try {
      await fd.sync();
    } finally {
      await fd.close();
    }
  } catch {}
}

/** Streams `source` into a new file while hashing it. */
export async function streamToFile(
  source: Uint8Array | ReadableStream<Uint8Array>,
  path: string,
): Promise<{ sha256: string; bytes: number }> {
  const hash = createHash("sha256");
  const fd = await open(path, "wx", 0o600);
  let bytes = 0;
  try {
    const chunks = source instanceof Uint8Array ? [source] : (source as unknown as AsyncIterable<Uint8Array>);
    for await (const chunk of chunks) {
      hash.update(chunk);
      bytes += chunk.byteLength;
      await fd.write(chunk);
    }
    await fd.sync();
  } finally {
    await fd.close();
  }
  return { sha256: hash.digest("hex"), bytes };
}

export async function removeTree(path: string): Promise<void> {
  await rm(path, { recursive: true, force: true });
}
