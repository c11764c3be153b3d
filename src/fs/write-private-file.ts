import { closeSync, fsyncSync, mkdirSync, openSync, renameSync, rmSync, writeSync } from "node:fs";
import { basename, dirname, join } from "node:path";

/**
 * Replaces `file` with `text` so a crash leaves either the old or the new file, never half of one: a temp
 * file in the same directory, created 0600 from the start (a secret never sits in a file others could
 * open, even briefly), fsynced, then renamed over. Missing parent directories are created 0700.
 */
export function writePrivateFileAtomically(file: string, text: string): void {
  const dir = dirname(file);
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  const temp = join(dir, `.${basename(file)}.${process.pid}.${crypto.randomUUID().slice(0, 8)}.tmp`);
  try {
    const fd = openSync(temp, "wx", 0o600);
    try {
      writeSync(fd, text);
      fsyncSync(fd);
    } finally {
      closeSync(fd);
    }
    renameSync(temp, file);
  } catch (err) {
    rmSync(temp, { force: true });
    throw err;
  }
}
