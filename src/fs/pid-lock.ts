import { randomBytes } from "node:crypto";
import { linkSync, readFileSync, writeFileSync } from "node:fs";
import { isProcessAlive, removeQuietly } from "./lock-files.ts";

/**
 * A cross-process lock (the plugin store's, auth.json's, fermix upgrade's): a file holding `<pid> <nonce>`. It is published with link(2) from a
 * fully written temp file, so a reader never sees it half-written, and a holder whose pid is gone (SIGKILL,
 * power loss) is recognised as stale and displaced. Waiting polls with backoff up to `timeoutMs`; a live
 * holder past that is reported, never displaced.
 */
export async function acquirePidLock(
  lock: string,
  timeoutMs: number,
  busy: (pid: number) => Error,
): Promise<() => void> {
  // The nonce tells apart two stores of one process, which share a pid.
  const token = `${process.pid} ${randomBytes(8).toString("hex")}`;
  const deadline = Date.now() + timeoutMs;
  let delay = 5;
  for (;;) {
    if (publish(lock, token)) {
      return () => {
        if (readToken(lock) === token) removeQuietly(lock);
      };
    }
    const holder = readToken(lock);
    if (holder === undefined) continue; // released between our attempt and the read
    const pid = pidOf(holder);
    if (pid === undefined || !isProcessAlive(pid)) {
      breakStale(lock, holder, token);
      continue;
    }
    if (Date.now() >= deadline) {
      throw busy(pid);
    }
    await new Promise((resolve) => setTimeout(resolve, delay));
    delay = Math.min(delay * 2, 100);
  }
}

/** Creates `path` with `token` as its content, atomically, or returns false if it exists. */
function publish(path: string, token: string): boolean {
  const temp = `${path}.${process.pid}.${randomBytes(6).toString("hex")}`;
  writeFileSync(temp, token, { mode: 0o600 });
  try {
    linkSync(temp, path);
    return true;
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === "EEXIST") return false;
    throw err;
  } finally {
    removeQuietly(temp);
  }
}

/**
 * Removes a dead holder's lock. Two waiters may both see the same dead holder; unlinking blindly would let
 * the slower one delete the lock the faster one has just taken. So breaking takes its own small lock and
 * re-reads the holder under it. A breaker that died mid-break (a window of microseconds) is cleared the same
 * way, by pid.
 */
function breakStale(lock: string, staleHolder: string, token: string): void {
  const breaker = `${lock}.break`;
  if (!publish(breaker, token)) {
    const other = readToken(breaker);
    const pid = other === undefined ? undefined : pidOf(other);
    if (other !== undefined && (pid === undefined || !isProcessAlive(pid))) removeQuietly(breaker);
    return;
  }
  try {
    if (readToken(lock) === staleHolder) removeQuietly(lock);
  } finally {
    removeQuietly(breaker);
  }
}

function readToken(path: string): string | undefined {
  try {
    return readFileSync(path, "utf8");
  } catch {
    return undefined;
  }
}

function pidOf(token: string): number | undefined {
  const pid = Number.parseInt(token.split(" ")[0] ?? "", 10);
  return Number.isInteger(pid) && pid > 0 ? pid : undefined;
}

/** Whether a live process holds `lock` now (a lock left by a dead one does not count). */
export function isLockHeld(lock: string): boolean {
  const holder = readToken(lock);
  const pid = holder === undefined ? undefined : pidOf(holder);
  return pid !== undefined && isProcessAlive(pid);
}
