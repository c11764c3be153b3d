import { readFileSync, unlinkSync } from "node:fs";

/** Whether a process with this pid exists (EPERM means it does, owned by someone else). */
export function isProcessAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === "EPERM";
  }
}

/**
 * Whether `pid` still runs: alive and not a zombie that only waits for its parent to reap it (a test harness or
 * a service manager may be slow to). Linux reads /proc; elsewhere a zombie counts as running, which only makes
 * a waiter wait for the reap.
 */
export function isProcessRunning(pid: number): boolean {
  if (!isProcessAlive(pid)) return false;
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    return !stat.slice(stat.lastIndexOf(")") + 2).startsWith("Z");
  } catch {
    return true;
  }
}

/** Removes a file that may already be gone (a lock or socket left by a process that died). */
export function removeQuietly(path: string): void {
  try {
    unlinkSync(path);
  } catch {}
}
