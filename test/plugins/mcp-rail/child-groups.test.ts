import { describe, expect, test } from "bun:test";
import { type ChildProcess, spawn } from "node:child_process";
import { once } from "node:events";
import { existsSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { createInterface } from "node:readline";
import {
  type ChildGroupRecord,
  createChildGroupRecord,
  processIdentity,
  reapOrphanedGroups,
} from "../../../src/plugins/mcp-rail/child-groups.ts";
import { cleanupAfterEach } from "../../fixture/cleanup.ts";
import { isGone, tempDir } from "./_fixture.ts";

const defer = cleanupAfterEach();
const MODULE = join(import.meta.dir, "../../../src/plugins/mcp-rail/child-groups.ts");
/** Safety net for a readiness line on a busy machine; never the thing measured. */
const READY_DEADLINE_MS = 15_000;
const SLEEP = "setInterval(() => {}, 1e9)";
/** A group leader that starts a helper in its own group, prints the helper's pid, and sleeps. */
const LEADER = `const h = require("child_process").spawn(process.execPath, ["-e", ${JSON.stringify(SLEEP)}], { stdio: "ignore" });
console.log(h.pid); ${SLEEP}`;
const linux = process.platform === "linux";

async function dir(): Promise<string> {
  const d = await tempDir("fermix-child-groups-");
  defer(d.remove);
  return d.path;
}

function killQuietly(target: number): void {
  try {
    process.kill(target, "SIGKILL");
  } catch {}
}

/** Spawns node; a detached one leads its own process group, and the group is killed after the test. */
function startNode(script: string, detached: boolean): ChildProcess {
  const child = spawn("node", ["-e", script], { detached, stdio: ["ignore", "pipe", "inherit"] });
  const pid = child.pid!;
  defer(() => killQuietly(detached ? -pid : pid));
  return child;
}

/** The first line a child prints: its readiness signal. */
async function firstLine(child: ChildProcess): Promise<string> {
  const lines = createInterface({ input: child.stdout! });
  let timer: ReturnType<typeof setTimeout> | undefined;
  const deadline = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`no line from pid ${child.pid}`)), READY_DEADLINE_MS);
  });
  try {
    const [line] = (await Promise.race([once(lines, "line"), deadline])) as [string];
    return line;
  } finally {
    clearTimeout(timer);
    lines.close();
  }
}

/** A group leader plus its helper, both running. */
async function startGroup(): Promise<{ leader: ChildProcess; pgid: number; helper: number }> {
  const leader = startNode(LEADER, true);
  const helper = Number(await firstLine(leader));
  defer(() => killQuietly(helper));
  return { leader, pgid: leader.pid!, helper };
}

async function killAndWait(child: ChildProcess): Promise<void> {
  const exited = child.exitCode === null && child.signalCode === null ? once(child, "exit") : undefined;
  child.kill("SIGKILL");
  await exited;
}

/** An owner whose process has ended, as a SIGKILLed fermix's record names it. */
async function deadOwner(): Promise<ChildGroupRecord["owner"]> {
  const child = startNode(`console.log("up"); ${SLEEP}`, false);
  await firstLine(child);
  const identity = processIdentity(child.pid!)!;
  await killAndWait(child);
  return { pid: child.pid!, identity };
}

function writeRecord(file: string, owner: ChildGroupRecord["owner"], groups: ChildGroupRecord["groups"]): void {
  writeFileSync(file, JSON.stringify({ version: 1, owner, groups } satisfies ChildGroupRecord));
}

const group = (pgid: number, identity: string) => ({
  pgid,
  identity,
  command: "node sleeper",
  started_at: new Date(0).toISOString(),
});

function collectingLog() {
  const warnings: string[] = [];
  return { warnings, log: { info: () => {}, warn: (msg: unknown) => void warnings.push(String(msg)) } };
}

describe("reapOrphanedGroups", () => {
  test("the groups of a SIGKILLed owner are killed, leader and helper, and its record removed", async () => {
    const records = await dir();
    const script = join(records, "owner.ts");
    writeFileSync(
      script,
      `import { spawn } from "node:child_process";
import { once } from "node:events";
import { createInterface } from "node:readline";
import { createChildGroupRecord } from ${JSON.stringify(MODULE)};
const record = createChildGroupRecord({ dir: process.argv[2], onError: (err) => { console.error(err); process.exit(1); } });
const leader = spawn("node", ["-e", ${JSON.stringify(LEADER)}], { detached: true, stdio: ["ignore", "pipe", "inherit"] });
const [helper] = await once(createInterface({ input: leader.stdout }), "line");
record.add(leader.pid, "node leader");
console.log(JSON.stringify({ leader: leader.pid, helper: Number(helper), file: record.file }));
${SLEEP};
`,
    );
    const owner = spawn(process.execPath, [script, records], { stdio: ["ignore", "pipe", "inherit"] });
    defer(() => killQuietly(owner.pid!));
    const { leader, helper, file } = JSON.parse(await firstLine(owner));
    defer(() => killQuietly(-leader));
    defer(() => killQuietly(helper));
    expect(file).toBe(join(records, `${owner.pid}.json`));
    const written = JSON.parse(readFileSync(file, "utf8"));
    expect(written.groups).toMatchObject([{ pgid: leader, identity: processIdentity(leader), command: "node leader" }]);

    await killAndWait(owner);
    expect([isGone(leader), isGone(helper)]).toEqual([false, false]);

    const report = await reapOrphanedGroups({ dir: records });
    expect(report).toEqual({ reaped: [{ pgid: leader, command: "node leader" }], skipped: [] });
    expect([isGone(leader), isGone(helper)]).toEqual([true, true]);
    expect(existsSync(file)).toBe(false);
  });

  test("a group whose leader is already gone still has its helpers killed", async () => {
    const records = await dir();
    const { leader, pgid, helper } = await startGroup();
    writeRecord(join(records, "1001.json"), await deadOwner(), [group(pgid, processIdentity(pgid)!)]);
    await killAndWait(leader);
    expect(isGone(helper)).toBe(false);

    const report = await reapOrphanedGroups({ dir: records });
    expect(report).toEqual({ reaped: [{ pgid, command: "node sleeper" }], skipped: [] });
    expect(isGone(helper)).toBe(true);
    expect(existsSync(join(records, "1001.json"))).toBe(false);
  });

  test("a leader that ignores SIGTERM is SIGKILLed once the grace is over", async () => {
    const records = await dir();
    const leader = startNode(`process.on("SIGTERM", () => {}); console.log("up"); ${SLEEP}`, true);
    await firstLine(leader);
    const pgid = leader.pid!;
    writeRecord(join(records, "1006.json"), await deadOwner(), [group(pgid, processIdentity(pgid)!)]);
    const exited = once(leader, "exit");

    const report = await reapOrphanedGroups({ dir: records, graceMs: 100 });
    expect(report.reaped).toEqual([{ pgid, command: "node sleeper" }]);
    expect(await exited).toEqual([null, "SIGKILL"]);
  });

  test("a leader pid that runs with another identity (pid reuse) is never killed", async () => {
    const records = await dir();
    const { pgid, helper } = await startGroup();
    writeRecord(join(records, "1002.json"), await deadOwner(), [group(pgid, "1@not-this-process")]);

    const report = await reapOrphanedGroups({ dir: records, graceMs: 50 });
    expect(report.reaped).toEqual([]);
    expect(report.skipped).toEqual([{ pgid, why: expect.stringContaining("another process") }]);
    expect([isGone(pgid), isGone(helper)]).toEqual([false, false]);
    expect(existsSync(join(records, "1002.json"))).toBe(false);
  });

  test("records of owners still running, this process's own among them, are left untouched", async () => {
    const records = await dir();
    const owner = startNode(`console.log("up"); ${SLEEP}`, false);
    await firstLine(owner);
    const theirs = await startGroup();
    const ours = await startGroup();
    const theirRecord = createChildGroupRecord({ dir: records, ownerPid: owner.pid! });
    theirRecord.add(theirs.pgid, "node theirs");
    const ownRecord = createChildGroupRecord({ dir: records });
    ownRecord.add(ours.pgid, "node ours");
    const before = [readFileSync(theirRecord.file, "utf8"), readFileSync(ownRecord.file, "utf8")];

    expect(await reapOrphanedGroups({ dir: records, graceMs: 50 })).toEqual({ reaped: [], skipped: [] });
    expect([readFileSync(theirRecord.file, "utf8"), readFileSync(ownRecord.file, "utf8")]).toEqual(before);
    for (const pid of [theirs.pgid, theirs.helper, ours.pgid, ours.helper]) expect(isGone(pid)).toBe(false);
  });

  test("an owner pid now held by another process counts as gone", async () => {
    const records = await dir();
    const { pgid, helper } = await startGroup();
    const impostor = { pid: process.pid, identity: "1@an-earlier-fermix" };
    writeRecord(join(records, `${process.pid}.json`), impostor, [group(pgid, processIdentity(pgid)!)]);

    const report = await reapOrphanedGroups({ dir: records });
    expect(report.reaped).toEqual([{ pgid, command: "node sleeper" }]);
    expect([isGone(pgid), isGone(helper)]).toEqual([true, true]);
  });

  test("corrupt and malformed records are removed with a warning, and nothing is killed", async () => {
    const records = await dir();
    const { pgid, helper } = await startGroup();
    const owner = await deadOwner();
    writeFileSync(join(records, "1003.json"), "{ not json");
    // Right identity, wrong version: nothing in it can be trusted enough to kill.
    writeFileSync(
      join(records, "1004.json"),
      JSON.stringify({ version: 2, owner, groups: [group(pgid, processIdentity(pgid)!)] }),
    );
    writeFileSync(join(records, "1005.json"), JSON.stringify({ version: 1, owner, groups: [{ pgid: "x" }] }));
    const { log, warnings } = collectingLog();

    expect(await reapOrphanedGroups({ dir: records, log })).toEqual({ reaped: [], skipped: [] });
    expect(warnings).toHaveLength(3);
    for (const name of ["1003.json", "1004.json", "1005.json"]) expect(existsSync(join(records, name))).toBe(false);
    expect([isGone(pgid), isGone(helper)]).toEqual([false, false]);
  });

  test("a missing directory reaps nothing", async () => {
    expect(await reapOrphanedGroups({ dir: join(await dir(), "absent") })).toEqual({ reaped: [], skipped: [] });
  });
});

describe("createChildGroupRecord", () => {
  test("add and remove rewrite one private file per owner; the last remove and clear delete it", async () => {
    const records = join(await dir(), "run", "children");
    const a = await startGroup();
    const b = await startGroup();
    const record = createChildGroupRecord({ dir: records, now: () => new Date(5_000) });
    expect(record.file).toBe(join(records, `${process.pid}.json`));

    record.add(a.pgid, "node a");
    record.add(b.pgid, "node b");
    expect(statSync(records).mode & 0o777).toBe(0o700);
    expect(statSync(record.file).mode & 0o777).toBe(0o600);
    expect(JSON.parse(readFileSync(record.file, "utf8"))).toEqual({
      version: 1,
      owner: { pid: process.pid, identity: processIdentity(process.pid) },
      groups: [
        { pgid: a.pgid, identity: processIdentity(a.pgid), command: "node a", started_at: "1970-01-01T00:00:05.000Z" },
        { pgid: b.pgid, identity: processIdentity(b.pgid), command: "node b", started_at: "1970-01-01T00:00:05.000Z" },
      ],
    });

    record.remove(a.pgid);
    expect(JSON.parse(readFileSync(record.file, "utf8")).groups.map((g: { pgid: number }) => g.pgid)).toEqual([b.pgid]);
    record.remove(b.pgid);
    expect(existsSync(record.file)).toBe(false);
    record.add(a.pgid, "node a");
    record.clear();
    expect(existsSync(record.file)).toBe(false);
  });

  test("a write that fails is reported through onError, never thrown", async () => {
    const blocker = join(await dir(), "not-a-dir");
    writeFileSync(blocker, "");
    const { pgid } = await startGroup();
    const errors: Error[] = [];
    const record = createChildGroupRecord({ dir: join(blocker, "children"), onError: (err) => errors.push(err) });
    expect(() => record.add(pgid, "node")).not.toThrow();
    expect(errors).toHaveLength(1);
  });
});

describe("processIdentity", () => {
  test("is stable for one process, differs between two, and is undefined once it has gone", async () => {
    const first = startNode(`console.log("up"); ${SLEEP}`, false);
    await firstLine(first);
    // The second starts after the first has printed, so later by at least node's start-up.
    const second = startNode(`console.log("up"); ${SLEEP}`, false);
    await firstLine(second);

    const identity = processIdentity(first.pid!);
    expect(identity).toBeString();
    expect(processIdentity(first.pid!)).toBe(identity!);
    expect(processIdentity(second.pid!)).not.toBe(identity!);
    if (linux) {
      const stat = readFileSync(`/proc/${first.pid}/stat`, "utf8");
      const startTime = stat.slice(stat.lastIndexOf(")") + 2).split(" ")[19];
      expect(identity!.split("@")[0]).toBe(startTime!);
    }

    await killAndWait(first);
    expect(processIdentity(first.pid!)).toBeUndefined();
  });

  test.if(linux)("a zombie counts as gone", async () => {
    // The shell execs node, which inherits the background child, kills it and never waits for it.
    const inherit = `process.kill(Number(process.env.Z), "SIGKILL"); console.log(process.env.Z); ${SLEEP}`;
    const parent = spawn("sh", ["-c", `tail -f /dev/null & export Z=$!; exec node -e '${inherit}'`], {
      stdio: ["ignore", "pipe", "inherit"],
    });
    defer(() => killQuietly(parent.pid!));
    const zombie = Number(await firstLine(parent));
    const deadline = Date.now() + READY_DEADLINE_MS;
    // The readiness signal here is the state letter itself; the deadline is only a safety net.
    while (!readFileSync(`/proc/${zombie}/stat`, "utf8").includes(") Z ")) {
      expect(Date.now()).toBeLessThan(deadline);
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
    expect(processIdentity(zombie)).toBeUndefined();
  });
});
