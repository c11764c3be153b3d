import { constants, readlinkSync } from "node:fs";
import type { FileHandle } from "node:fs/promises";
import { nodeModule } from "../runtime/host.ts";
import type { Denial } from "./types.ts";

// O_NOFOLLOW: a link swapped in at the final component after the check fails the open (ELOOP) instead
// of being followed. O_NONBLOCK: a FIFO planted where a file was expected cannot hang the read.
const READ_FLAGS = constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK;
// No O_TRUNC: a hard-linked file must be refused before a single byte of it changes.
const WRITE_FLAGS = constants.O_WRONLY | constants.O_CREAT | constants.O_NOFOLLOW | constants.O_NONBLOCK;
const CHUNK = 64 * 1024;

/** Reads up to `maxBytes` of the regular file at the canonical `path` without following a link there. */
export async function readNoFollow(
  path: string,
  maxBytes: number,
): Promise<{ ok: true; bytes: Uint8Array; truncated: boolean } | Denial> {
  const handle = await openOrDenial(path, READ_FLAGS, 0);
  if ("code" in handle) return handle;
  try {
    const refused = await refuseUnlessFile(handle, path, "read");
    if (refused) return refused;
    // Chunked, so a huge cap costs nothing on a small file; one byte past the cap tells a file of
    // exactly maxBytes from a longer one.
    const chunks: Uint8Array[] = [];
    let filled = 0;
    while (filled <= maxBytes) {
      const chunk = new Uint8Array(Math.min(CHUNK, maxBytes + 1 - filled));
      const { bytesRead } = await handle.read(chunk, 0, chunk.length, null);
      if (bytesRead === 0) break;
      chunks.push(chunk.subarray(0, bytesRead));
      filled += bytesRead;
    }
    const bytes = Buffer.concat(chunks);
    return {
      ok: true,
      bytes: new Uint8Array(bytes.subarray(0, Math.min(filled, maxBytes))),
      truncated: filled > maxBytes,
    };
  } finally {
    await handle.close();
  }
}

/** Replaces the contents of the regular file at the canonical `path` (creating it 0644 less umask). */
export async function writeNoFollow(path: string, content: string | Uint8Array): Promise<{ ok: true } | Denial> {
  const handle = await openOrDenial(path, WRITE_FLAGS, 0o666);
  if ("code" in handle) return handle;
  try {
    const refused = await refuseUnlessFile(handle, path, "write");
    if (refused) return refused;
    await handle.truncate(0);
    const bytes = typeof content === "string" ? new TextEncoder().encode(content) : content;
    let written = 0;
    while (written < bytes.length) {
      const { bytesWritten } = await handle.write(bytes, written, bytes.length - written, written);
      written += bytesWritten;
    }
    return { ok: true };
  } finally {
    await handle.close();
  }
}

async function openOrDenial(path: string, flags: number, mode: number): Promise<FileHandle | Denial> {
  try {
    // node:fs/promises on a file tool's first call: its import costs every in-process ask (issue 31).
    return await nodeModule<typeof import("node:fs/promises")>("node:fs/promises").open(path, flags, mode);
  } catch (err: any) {
    switch (err?.code) {
      case "ELOOP":
      case "EMLINK": // FreeBSD's answer to O_NOFOLLOW on a link
        return { ok: false, code: "symlink", path, reason: `${path} became a symbolic link; it is not followed.` };
      case "ENOENT":
        return { ok: false, code: "not_found", path, reason: `${path} does not exist.` };
      case "EISDIR":
        return { ok: false, code: "invalid", path, reason: `${path} is a directory, not a file.` };
      case "ENXIO": // a FIFO or socket opened for writing
        return { ok: false, code: "invalid", path, reason: `${path} is not a regular file.` };
      case "EACCES":
      case "EPERM":
      case "EROFS":
        return { ok: false, code: "invalid", path, reason: `${path}: permission denied (${err.code}).` };
      default:
        throw err;
    }
  }
}

/**
 * After the open, the descriptor is the truth: it must be a regular file, single-linked for writes, and
 * (where /proc tells us) the very path that was judged — which catches a parent directory swapped for a
 * link between the check and the open.
 */
async function refuseUnlessFile(handle: FileHandle, path: string, access: "read" | "write"): Promise<Denial | null> {
  const stat = await handle.stat();
  if (!stat.isFile()) return { ok: false, code: "invalid", path, reason: `${path} is not a regular file.` };
  if (access === "write" && stat.nlink > 1) {
    return {
      ok: false,
      code: "hardlink",
      path,
      reason: `${path} has ${stat.nlink} hard links, so writing it would also change the other copies, which may be outside the sandbox.`,
    };
  }
  const opened = openedPath(handle.fd);
  if (opened !== null && opened !== path) {
    return { ok: false, code: "symlink", path, reason: `${path} moved while it was opened (it now is ${opened}).` };
  }
  return null;
}

function openedPath(fd: number): string | null {
  if (process.platform !== "linux") return null;
  try {
    return readlinkSync(`/proc/self/fd/${fd}`);
  } catch {
    return null;
  }
}
