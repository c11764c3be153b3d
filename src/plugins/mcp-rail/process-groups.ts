/**
 * The process groups of the servers this process started, and the last-resort teardown. Kept apart from the
 * transport (and so from the MCP SDK) because the composition root wires the watcher before any server starts.
 */

/** Told of every process group this process starts and of its end, e.g. to keep a record a later start can reap. */
export type GroupWatcher = { spawned(pgid: number, command: string): void; ended(pgid: number): void };

/**
 * Every server group this process has started and not yet seen end. Process-wide on purpose: a process's
 * children are process-wide, and the last-resort teardown on exit must find them all, whoever started them.
 */
const liveGroups = new Set<number>();
let watcher: GroupWatcher | undefined;

/** Sets who hears of group starts and ends (the composition root's child-group record). */
export function watchGroups(next: GroupWatcher | undefined): void {
  watcher = next;
}

/** A server was spawned as the leader of process group `pgid`. */
export function groupStarted(pgid: number, command: string): void {
  liveGroups.add(pgid);
  watcher?.spawned(pgid, command);
}

/** The server of group `pgid` has been reaped and its group killed. */
export function groupEnded(pgid: number): void {
  liveGroups.delete(pgid);
  watcher?.ended(pgid);
}

/** The groups this process started that still run. */
export function liveGroupCount(): number {
  return liveGroups.size;
}

/**
 * SIGKILLs every group this process started that has not ended: the last resort on exit or on a fatal
 * signal, when there is no time for a graceful stop. Synchronous, so it works inside an `exit` handler.
 */
export function killAllGroupsNow(): void {
  for (const pgid of liveGroups) {
    try {
      process.kill(-pgid, "SIGKILL");
    } catch {
      // ESRCH: the group is already empty.
    }
  }
}

// Whatever ends this process — process.exit() after an uncaught error, a timeout, the end of a command — takes
// the groups it started along. Graceful stops run before this; at that point there is nothing left to kill.
process.on("exit", killAllGroupsNow);
