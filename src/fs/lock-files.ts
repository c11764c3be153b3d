import { unlinkSync } from "node:fs";

/** Whether a process with this pid exists (EPERM means it does, owned by someone else). */
export function isProcessAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === "EPERM";
  }
}

/** Removes a file that may already be gone (a lock or socket left by a process that died). */
export function removeQuietly(path: string): void {
  try {
    unlinkSync(path);
  } catch {}
}
