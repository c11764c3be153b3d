/**
 * Does the daemon keep up with many clients at once? Issue 31: `--clients` (200) concurrent
 * `fermix ask --daemon "ping"` processes against one daemon, whose fake model answers each request after
 * `--latency` (500) ms, versus as many concurrent one-fetch floor programs (bench/_floors.ts) sending the very
 * request the daemon sent straight to the same fake. Prints both wall times (first spawn to last exit), the
 * ratio (target ≤ 1.3×) and how many answered; `--rounds` alternates floor and fermix and takes the medians.
 * It also prints where the CPU went (issue 31 item 5 asks whether the gap is the clients' start-up, the daemon's
 * per-ask work or SQLite): each client's CPU time, floor and fermix, and the daemon's per ask (Linux: /proc).
 *
 * If the open-files or process limits cannot carry that many clients, it says so and exits 1 before spawning.
 *
 *   bun bench/fanout.ts [--clients N] [--latency MS] [--rounds N] [--binary PATH]
 */
import { readFileSync } from "node:fs";
import { mkdir, mkdtemp, rm } from "node:fs/promises";
import { availableParallelism, tmpdir } from "node:os";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { startFakeOpenAIResponses } from "../test/fake/llm.ts";
import { buildOneFetchFloor, projectBun, replayOf } from "./_floors.ts";
import { benchBinary, benchRuns, freshCopy, procStatFields, startUntilReady, stats } from "./_measure.ts";

const KEY = "sk-bench-fanout";
const TARGET = 1.3;
// Per client: the bench holds two pipes and a pidfd and the fake one accepted socket; the daemon holds the
// client's socket and its own connection to the fake. The slack covers everything else both processes keep open.
const FDS_PER_CLIENT = { bench: 4, daemon: 2 };
const FD_SLACK = 256;
/** The machine cannot carry the fan-out asked for: said in the output, not a crash. */
class Cannot extends Error {}

const { values: flags } = parseArgs({
  args: Bun.argv.slice(2),
  options: {
    clients: { type: "string", default: "200" },
    latency: { type: "string", default: "500" },
    rounds: { type: "string", default: "1" },
    binary: { type: "string" },
  },
});
const clients = wholeNumber("--clients", flags.clients);
const latencyMs = wholeNumber("--latency", flags.latency);
const rounds = benchRuns(flags.rounds);
const source = benchBinary(flags.binary);
// Safety net only: a round that has not finished by then is reported with whoever answered, not waited on.
const deadlineMs = 120_000 + latencyMs * 4;

const tooMany = limitProblem(limitOf("self", "Max open files"), clients * FDS_PER_CLIENT.bench + FD_SLACK, "bench");
if (tooMany) cannot(tooMany);
const procLimit = limitOf("self", "Max processes");
if (procLimit < clients + FD_SLACK) cannot(`the process limit is ${procLimit} (ulimit -u), below ${clients} clients`);

const root = await mkdtemp(join(tmpdir(), "fxf-"));
const binary = await freshCopy(source, root);
const fake = await startFakeOpenAIResponses({ apiKey: KEY });
fake.setDefault({ kind: "delay", ms: latencyMs, reply: { kind: "text", text: "pong" } });
let stopDaemon: (() => Promise<number>) | undefined;

try {
  const env = {
    FERMIX_HOME: join(root, "h"),
    HOME: root,
    OPENAI_API_KEY: KEY,
    OPENAI_BASE_URL: fake.baseUrl,
    PATH: "/usr/bin:/bin",
  };
  await mkdir(env.FERMIX_HOME, { mode: 0o700 });
  await mkdir(join(root, "floors"));
  const daemon = await startUntilReady([binary, "run"], { env, cwd: root }, "listening on");
  stopDaemon = daemon.stop;
  const daemonPid = Number(readFileSync(join(env.FERMIX_HOME, "daemon.lock"), "utf8").trim());
  const daemonFds = limitOf(String(daemonPid), "Max open files");
  const daemonProblem = limitProblem(daemonFds, clients * FDS_PER_CLIENT.daemon + FD_SLACK, "daemon");
  // Thrown, not exited: the finally below still stops the daemon and the fake.
  if (daemonProblem) throw new Cannot(daemonProblem);

  // One ask first: it warms the daemon and shows the request the floor must replay.
  const before = fake.requests.length;
  const warm = await fanOut(1, [binary, "ask", "--daemon", "ping"], { env, cwd: root }, isPong);
  if (warm.answered !== 1) throw new Error(`the warm-up ask failed: ${warm.failures[0]}`);
  const sent = fake.requests[before]!;
  const floor = await buildOneFetchFloor(join(root, "floors"), replayOf(sent, fake.baseUrl));

  const floorWalls: number[] = [];
  const fermixWalls: number[] = [];
  const cpu = { floorClients: 0, fermixClients: 0, daemon: 0, daemonFaults: 0 };
  const failures: string[] = [];
  let floorAnswered = clients * rounds;
  let fermixAnswered = clients * rounds;
  for (let round = 0; round < rounds; round++) {
    const f = await fanOut(clients, [floor], { cwd: root }, (out) => out.includes("response.completed"));
    const daemonBefore = { cpu: cpuMsOf(daemonPid), faults: faultsOf(daemonPid) };
    const x = await fanOut(clients, [binary, "ask", "--daemon", "ping"], { env, cwd: root }, isPong);
    cpu.daemon += cpuMsOf(daemonPid) - daemonBefore.cpu;
    cpu.daemonFaults += faultsOf(daemonPid) - daemonBefore.faults;
    cpu.floorClients += f.cpuMs;
    cpu.fermixClients += x.cpuMs;
    floorWalls.push(f.wallMs);
    fermixWalls.push(x.wallMs);
    floorAnswered -= clients - f.answered;
    fermixAnswered -= clients - x.answered;
    failures.push(...f.failures.map((m) => `floor: ${m}`), ...x.failures.map((m) => `fermix: ${m}`));
  }
  stopDaemon = undefined;
  await daemon.stop();

  const total = clients * rounds;
  const floorWall = stats(floorWalls).median;
  const fermixWall = stats(fermixWalls).median;
  const ratio = fermixWall / floorWall;
  const allAnswered = fermixAnswered === total && floorAnswered === total;
  console.log(`fermix (${source}, run from a fresh copy); floor compiled with ${projectBun()} (Bun ${Bun.version})`);
  console.log(
    `${clients} concurrent clients, model latency ${latencyMs} ms, ${rounds} round(s) (floor, then fermix); ` +
      `request body ${sent.bytes} bytes; open files: bench ${limitOf("self", "Max open files")}, daemon ${daemonFds}`,
  );
  console.log(`wall time is first spawn to last exit${rounds > 1 ? ", median over rounds" : ""}`);
  console.log();
  console.log(`  one-fetch floor            ${ms(floorWall)}  answered ${floorAnswered}/${total}`);
  console.log(`  fermix ask --daemon ping   ${ms(fermixWall)}  answered ${fermixAnswered}/${total}`);
  console.log(
    `  ratio ${ratio.toFixed(3)}×  target ≤ ${TARGET}×  ${ratio <= TARGET && allAnswered ? "PASS" : "MISS"}` +
      (allAnswered ? "  (all answered)" : "  (not all answered: MISS whatever the ratio)"),
  );
  const each = (total: number) => `${(total / (clients * rounds)).toFixed(1)} ms`;
  console.log(
    `  CPU per client: floor ${each(cpu.floorClients)}, fermix ${each(cpu.fermixClients)}; ` +
      (Number.isNaN(cpu.daemon) ? "the daemon's is not readable here" : `the daemon's per ask ${each(cpu.daemon)}`) +
      ` (${availableParallelism()} cores)`,
  );
  // With every core busy (the clients' start-ups fill them), the wall ratio follows the CPU one: this says which side
  // of it would have to shrink.
  if (!Number.isNaN(cpu.daemon)) {
    const perAsk = (cpu.fermixClients + cpu.daemon) / cpu.floorClients;
    console.log(
      `  CPU per ask, clients and daemon, over the floor's: ${perAsk.toFixed(3)}× ` +
        `(clients ${pct(cpu.fermixClients, cpu.fermixClients + cpu.daemon)}, daemon ` +
        `${pct(cpu.daemon, cpu.fermixClients + cpu.daemon)}); the daemon's page faults per ask ` +
        `${(cpu.daemonFaults / total).toFixed(0)}`,
    );
  }
  for (const failure of failures.slice(0, 5)) console.log(`  failed: ${failure}`);
  if (failures.length > 5) console.log(`  … and ${failures.length - 5} more failures`);
} catch (err) {
  if (!(err instanceof Cannot)) throw err;
  console.log(cannotSay(err.message));
  process.exitCode = 1;
} finally {
  if (stopDaemon) await stopDaemon().catch(() => {});
  await fake.close();
  await rm(root, { recursive: true, force: true });
}

type FanOut = { wallMs: number; answered: number; failures: string[]; cpuMs: number };

/**
 * Spawns `n` copies of `cmd` at once and waits for the last to exit. A spawn the OS refuses, a wrong answer or a
 * run still going at the deadline counts as not answered, with the reason, instead of ending the bench.
 */
async function fanOut(
  n: number,
  cmd: string[],
  opts: { env?: Record<string, string>; cwd: string },
  answered: (stdout: string) => boolean,
): Promise<FanOut> {
  const failures: string[] = [];
  const live = new Set<Bun.Subprocess>();
  let cpuMs = 0;
  const t0 = performance.now();
  const runs: Promise<boolean>[] = [];
  for (let i = 0; i < n; i++) {
    let proc: Bun.Subprocess<"ignore", "pipe", "pipe">;
    try {
      proc = Bun.spawn(cmd, { ...opts, stdin: "ignore", stdout: "pipe", stderr: "pipe" });
    } catch (err) {
      failures.push(`spawn refused: ${(err as Error).message}`);
      continue;
    }
    live.add(proc);
    runs.push(
      Promise.all([new Response(proc.stdout).text(), new Response(proc.stderr).text(), proc.exited]).then(
        ([out, err, code]) => {
          live.delete(proc);
          cpuMs += Number(proc.resourceUsage()?.cpuTime.total ?? 0) / 1000;
          if (code === 0 && answered(out)) return true;
          failures.push(`exit ${code}: ${(err || out).trim().split("\n").at(-1)}`);
          return false;
        },
      ),
    );
  }
  const timer = setTimeout(() => {
    failures.push(`${live.size} still running after ${deadlineMs} ms, killed`);
    for (const proc of live) proc.kill("SIGKILL");
  }, deadlineMs);
  const done = await Promise.all(runs);
  const wallMs = performance.now() - t0;
  clearTimeout(timer);
  return { wallMs, answered: done.filter(Boolean).length, failures, cpuMs };
}

/** A process's CPU time so far (user + system) in ms, from /proc; NaN where there is no /proc (macOS). */
function cpuMsOf(pid: number): number {
  // utime and stime, in clock ticks (USER_HZ, 100).
  const fields = procStatFields(pid);
  return fields ? ((Number(fields[11]) + Number(fields[12])) * 1000) / 100 : Number.NaN;
}

/**
 * A process's minor page faults so far, from /proc (NaN without it). They are costly on a VM and most of a warm
 * daemon's are the allocator handing freed pages back between asks and touching them again.
 */
function faultsOf(pid: number): number {
  return Number(procStatFields(pid)?.[7] ?? Number.NaN);
}

function pct(part: number, whole: number): string {
  return `${Math.round((100 * part) / whole)}%`;
}

function isPong(stdout: string): boolean {
  return stdout.trim() === "pong";
}

/** The soft limit named `name` in /proc/<pid>/limits ("unlimited" as Infinity). */
function limitOf(pid: string, name: string): number {
  const line = readFileSync(`/proc/${pid}/limits`, "utf8")
    .split("\n")
    .find((l) => l.startsWith(name));
  const soft = line?.slice(name.length).trim().split(/\s+/)[0];
  return soft === undefined || soft === "unlimited" ? Number.POSITIVE_INFINITY : Number(soft);
}

function limitProblem(limit: number, needed: number, who: string): string | undefined {
  if (limit >= needed) return undefined;
  return `the ${who}'s open-files limit is ${limit}, about ${needed} are needed (raise it with \`ulimit -n ${needed}\`)`;
}

function cannotSay(why: string): string {
  return `this machine cannot run ${clients} concurrent clients: ${why}; try fewer with --clients`;
}

function cannot(why: string): never {
  console.log(cannotSay(why));
  process.exit(1);
}

function wholeNumber(flag: string, given: string): number {
  const n = Number(given);
  if (!Number.isInteger(n) || n < 1) {
    console.error(`${flag} takes a whole number ≥ 1`);
    process.exit(2);
  }
  return n;
}

function ms(value: number): string {
  return `${(value / 1000).toFixed(2).padStart(6)} s`;
}
