import { closeSync, openSync, readFileSync, statSync, writeSync } from "node:fs";
import type { FermixPaths } from "../config/paths.ts";
import { defineError } from "../error.ts";
import { isProcessAlive, removeQuietly } from "../fs/lock-files.ts";

export const AlreadyRunning = defineError<{ pid: number }>("already_running");

/** A lock younger than this whose socket is silent may belong to a daemon that is still starting. */
const STARTUP_GRACE_MS = 10_000;

/**
 * Claims the right to be this FERMIX_HOME's daemon: a pid lock file created exclusively, then the
 * socket path cleared if what is there is stale. A live daemon is never displaced.
 */
export async function claimInstance(
  paths: FermixPaths,
  probe: (socket: string) => Promise<boolean>,
): Promise<() => void> {
  let claimed = false;
  for (let attempt = 0; attempt < 3 && !claimed; attempt++) {
    try {
      const fd = openSync(paths.lock, "wx", 0o600);
      writeSync(fd, String(process.pid));
      closeSync(fd);
      claimed = true;
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== "EEXIST") throw err;
      const holder = readPid(paths.lock);
      if (holder && holder !== process.pid && isProcessAlive(holder)) {
        const fresh = Date.now() - mtime(paths.lock) < STARTUP_GRACE_MS;
        if (fresh || (await probe(paths.socket))) {
          throw AlreadyRunning(`fermix is already running (pid ${holder}); stop it with \`fermix stop\``, {
            pid: holder,
          });
        }
      }
      removeQuietly(paths.lock);
    }
  }
  if (!claimed) throw AlreadyRunning(`could not claim ${paths.lock}; another fermix daemon is starting`, { pid: 0 });
  if (await probe(paths.socket)) {
    removeQuietly(paths.lock);
    throw AlreadyRunning("another fermix daemon answers on this socket; stop it with `fermix stop`", { pid: 0 });
  }
  // Whatever is left at the socket path answers nobody: a crashed daemon's leftover.
  removeQuietly(paths.socket);
  return () => {
    if (readPid(paths.lock) === process.pid) removeQuietly(paths.lock);
  };
}

function readPid(path: string): number | undefined {
  try {
    const pid = Number.parseInt(readFileSync(path, "utf8").trim(), 10);
    return Number.isInteger(pid) && pid > 0 ? pid : undefined;
  } catch {
    return undefined;
  }
}

function mtime(path: string): number {
  try {
    return statSync(path).mtimeMs;
  } catch {
    return 0;
  }
}
