import { readdirSync, readFileSync, rmSync } from "node:fs";
import { join } from "node:path";
import * as v from "valibot";
import { writePrivateFileAtomically } from "../../fs/write-private-file.ts";
import type { Log } from "../../observability/log.ts";
import { spawnSync } from "../../runtime/processes.ts";
import { watchGroups } from "./process-groups.ts";

/** Between checks while waiting for signalled processes to go. */
const POLL_MS = 20;
/** SIGKILL cannot be caught, only delayed (uninterruptible I/O); past this the group is reported, not awaited. */
const KILL_WAIT_MS = 2_000;

/**
 * A value that changes when a pid is reused, or undefined when no such process runs (a zombie does not).
 * Linux: the start time in clock ticks since boot (field 22 of /proc/<pid>/stat) plus the boot id, since
 * a record can outlive a power cut and an early-boot process may get the same pid at the same tick.
 * macOS: `ps`'s lstart, a wall-clock time to the second.
 */
export function processIdentity(pid: number): string | undefined {
  if (!Number.isInteger(pid) || pid <= 0) return undefined;
  if (process.platform === "darwin") return darwinIdentity(pid);
  const fields = procStat(pid);
  if (!fields || fields[0] === "Z" || !fields[19]) return undefined;
  return bootId() ? `${fields[19]}@${bootId()}` : fields[19];
}

/** The fields of /proc/<pid>/stat from field 3 (state) on: the command before them may hold spaces and ")". */
function procStat(pid: number): string[] | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    return stat.slice(stat.lastIndexOf(")") + 2).split(" ");
  } catch {
    return undefined;
  }
}

let cachedBootId: string | null | undefined;
function bootId(): string | null {
  if (cachedBootId === undefined) {
    try {
      cachedBootId = readFileSync("/proc/sys/kernel/random/boot_id", "utf8").trim() || null;
    } catch {
      cachedBootId = null;
    }
  }
  return cachedBootId;
}

/** `ps` on macOS, through the runtime's spawnSync: node:child_process costs a one-shot ask milliseconds on Bun just to import. */
function runPs(args: string[]): { ok: boolean; stdout: string } {
  try {
    const proc = spawnSync(["ps", ...args], { stdout: "pipe" });
    return { ok: proc.exitCode === 0, stdout: proc.stdout };
  } catch {
    return { ok: false, stdout: "" };
  }
}

function darwinIdentity(pid: number): string | undefined {
  // stat alongside lstart, because ps still lists a zombie, with its start time.
  const out = runPs(["-o", "stat=", "-o", "lstart=", "-p", String(pid)]);
  const match = out.ok ? /^(\S+)\s+(.+)$/.exec(out.stdout.trim()) : null;
  if (!match?.[1] || !match[2] || match[1].startsWith("Z")) return undefined;
  return match[2];
}

/**
 * Resolves once no live process is left in group `pgid` (true), or after `ms` (false). A SIGKILL is delivered
 * asynchronously: a helper can still show as running for a moment after its group was signalled.
 */
export function groupEmptied(pgid: number, ms: number = KILL_WAIT_MS): Promise<boolean> {
  return until(() => groupMembers(pgid).length === 0, ms);
}

/** Live (not zombie) processes in process group `pgid`. */
function groupMembers(pgid: number): number[] {
  const members: number[] = [];
  if (process.platform === "darwin") {
    // One -o per column: BSD ps reads everything after "=" as the header, commas included.
    const out = runPs(["-A", "-o", "pid=", "-o", "pgid=", "-o", "stat="]);
    for (const line of out.stdout.split("\n")) {
      const [pid, group, state] = line.trim().split(/\s+/);
      if (Number(group) === pgid && state && !state.startsWith("Z")) members.push(Number(pid));
    }
    return members;
  }
  let entries: string[] = [];
  try {
    entries = readdirSync("/proc");
  } catch {}
  for (const name of entries) {
    if (!/^\d+$/.test(name)) continue;
    const fields = procStat(Number(name));
    if (fields && fields[0] !== "Z" && Number(fields[2]) === pgid) members.push(Number(name));
  }
  return members;
}

const Identity = v.pipe(v.string(), v.minLength(1));
const Owner = v.object({ pid: v.pipe(v.number(), v.integer(), v.minValue(1)), identity: Identity });
/** What a record says is enough to tell whether its owner still runs, whatever else it holds. */
const OwnerOnly = v.object({ owner: Owner });
/** One file per owner, `<dir>/<owner pid>.json`: the process groups it started and has not yet seen end. */
export const ChildGroupRecord = v.object({
  version: v.literal(1),
  owner: Owner,
  groups: v.array(
    v.object({
      // 0 and 1 are not groups we made: kill(-0) signals our own group and kill(-1) every process we may signal.
      pgid: v.pipe(v.number(), v.integer(), v.minValue(2)),
      identity: Identity,
      command: v.string(),
      started_at: v.string(),
    }),
  ),
});
export type ChildGroupRecord = v.InferOutput<typeof ChildGroupRecord>;
type Group = ChildGroupRecord["groups"][number];

export type ChildGroupRecorder = {
  /** Records a group right after its leader (pid = pgid) was spawned. */
  add(pgid: number, command: string): void;
  /** Forgets a group once it has been seen to end. */
  remove(pgid: number): void;
  /** Forgets every group and removes the file, on a clean shutdown. */
  clear(): void;
  readonly file: string;
};

/**
 * The on-disk list of the process groups this process started, so that a successor can reap them if this
 * one is SIGKILLed. Writes are synchronous so an add and a remove never interleave, and never throw: losing
 * the record costs only the cleanup after a crash, not the child itself.
 */
export function createChildGroupRecord(deps: {
  dir: string;
  ownerPid?: number;
  onError?: (err: Error) => void;
  now?: () => Date;
}): ChildGroupRecorder {
  const { dir, ownerPid = process.pid, onError, now = () => new Date() } = deps;
  const file = join(dir, `${ownerPid}.json`);
  const groups = new Map<number, Group>();
  let ownerIdentity: string | undefined;

  const write = () => {
    try {
      if (groups.size === 0) {
        rmSync(file, { force: true });
        return;
      }
      ownerIdentity ??= processIdentity(ownerPid);
      // Without it a successor could not tell us from a stranger given our pid, and would reap our children.
      if (ownerIdentity === undefined) throw new Error(`cannot identify owner process ${ownerPid}`);
      const record: ChildGroupRecord = {
        version: 1,
        owner: { pid: ownerPid, identity: ownerIdentity },
        groups: [...groups.values()],
      };
      writePrivateFileAtomically(file, `${JSON.stringify(record, null, 2)}\n`);
    } catch (err) {
      onError?.(err as Error);
    }
  };

  return {
    file,
    add(pgid, command) {
      const identity = processIdentity(pgid);
      // A leader already gone (or unidentifiable) could never be told from a later holder of its pid.
      if (identity === undefined || pgid < 2) return;
      groups.set(pgid, { pgid, identity, command, started_at: now().toISOString() });
      write();
    },
    remove(pgid) {
      if (groups.delete(pgid)) write();
    },
    clear() {
      groups.clear();
      write();
    },
  };
}

let processRecord: ChildGroupRecorder | undefined;

/**
 * Records every process group this process starts, in `dir`, from the first caller on: plugin servers and the
 * daemon's signal-cli both start children, and a second recorder would overwrite the first one's file.
 */
export function recordChildGroups(deps: { dir: string; onError?: (err: Error) => void }): ChildGroupRecorder {
  if (!processRecord) {
    const record = createChildGroupRecord(deps);
    watchGroups({ spawned: (pgid, command) => record.add(pgid, command), ended: (pgid) => record.remove(pgid) });
    processRecord = record;
  }
  return processRecord;
}

export type ReapReport = {
  reaped: Array<{ pgid: number; command: string }>;
  skipped: Array<{ pgid: number; why: string }>;
};

/**
 * Ends the process groups recorded by owners that no longer run (a fermix that was SIGKILLed), and only
 * those: a leader is signalled only while it runs with the recorded identity. Records of live owners,
 * this process's own among them, are left alone; unreadable ones are removed without killing anything.
 */
export async function reapOrphanedGroups(opts: {
  dir: string;
  log?: Pick<Log, "info" | "warn">;
  graceMs?: number;
}): Promise<ReapReport> {
  const { dir, log, graceMs = 1_000 } = opts;
  const report: ReapReport = { reaped: [], skipped: [] };
  let names: string[] = [];
  try {
    names = readdirSync(dir);
  } catch {}
  // Temp files of the atomic writer start with "."; a dead writer's are harmless and left alone.
  const records = names.filter((name) => name.endsWith(".json") && !name.startsWith("."));
  await Promise.all(
    records.map(async (name) => {
      const file = join(dir, name);
      let json: unknown;
      try {
        json = JSON.parse(readFileSync(file, "utf8"));
      } catch (err) {
        if ((err as NodeJS.ErrnoException).code === "ENOENT") return; // its owner cleared it meanwhile
        log?.warn(`removing unreadable child-group record ${file}: ${(err as Error).message}`);
        rmSync(file, { force: true });
        return;
      }
      const owner = v.safeParse(OwnerOnly, json);
      if (owner.success && processIdentity(owner.output.owner.pid) === owner.output.owner.identity) return;
      const record = v.safeParse(ChildGroupRecord, json);
      if (!record.success) {
        const issue = record.issues[0];
        log?.warn(
          `removing malformed child-group record ${file}: ${v.getDotPath(issue) ?? "record"}: ${issue.message}`,
        );
        rmSync(file, { force: true });
        return;
      }
      await Promise.all(
        record.output.groups.map(async (group) => {
          const outcome = await reapGroup(group, graceMs);
          if (outcome === "gone") return;
          if (outcome === "reaped") {
            log?.info(
              `reaped process group ${group.pgid} (${group.command}) left by fermix ${record.output.owner.pid}`,
            );
            report.reaped.push({ pgid: group.pgid, command: group.command });
          } else {
            log?.info(`left process group ${group.pgid} (${group.command}) alone: ${outcome.why}`);
            report.skipped.push({ pgid: group.pgid, why: outcome.why });
          }
        }),
      );
      rmSync(file, { force: true });
    }),
  );
  return report;
}

async function reapGroup(group: Group, graceMs: number): Promise<"reaped" | "gone" | { why: string }> {
  const { pgid } = group;
  const running = processIdentity(pgid);
  if (running !== undefined && running !== group.identity) {
    return { why: `pid ${pgid} now belongs to another process (its start time differs)` };
  }
  const members = groupMembers(pgid);
  // A fermix started from inside a plugin (which ran `fermix …`) must not kill the group it runs in.
  if (members.includes(process.pid)) return { why: "this process is a member of the group" };
  if (running === undefined) {
    // The leader is gone, but its helpers may not be. Neither Linux nor macOS hands out a pid that is still
    // in use as a process-group id, so while any process carries this group id the number cannot have been
    // reissued: the group is still the one our leader made. (Were it empty, the kill would find nobody.)
    if (members.length === 0) return "gone";
  } else {
    if (signal(-pgid, "SIGTERM") === "EPERM") return { why: "not permitted to signal the group" };
    await until(() => processIdentity(pgid) !== group.identity, graceMs);
  }
  // What ignored SIGTERM, and helpers that outlived their leader: the same reasoning as above makes the
  // group id still ours while it has members.
  signal(-pgid, "SIGKILL");
  const emptied = await until(() => groupMembers(pgid).length === 0, KILL_WAIT_MS);
  return emptied ? "reaped" : { why: `still running ${KILL_WAIT_MS} ms after SIGKILL` };
}

function signal(target: number, sig: NodeJS.Signals): string | undefined {
  try {
    process.kill(target, sig);
    return undefined;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code; // ESRCH: nobody left in the group
  }
}

/** Polls `done` until it holds or `ms` have passed; resolves with whether it held. */
async function until(done: () => boolean, ms: number): Promise<boolean> {
  const deadline = Date.now() + ms;
  while (!done()) {
    if (Date.now() >= deadline) return false;
    await new Promise((resolve) => setTimeout(resolve, POLL_MS));
  }
  return true;
}
