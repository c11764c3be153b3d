import { existsSync, readFileSync } from "node:fs";
import { chmod, mkdir } from "node:fs/promises";
import { join, resolve } from "node:path";
/**
 * Timing helpers for the benchmarks in bench/. Everything here is async on purpose: the fake LLM server
 * lives in the benchmark's own process, so a blocking spawn would stall it and the child would wait forever.
 */

export type Run = {
  /** Wall time from spawn to exit, in milliseconds. */
  ms: number;
  /** Epoch milliseconds just before the spawn, to line up with the fake's `receivedAt`. */
  startedAt: number;
  code: number;
  stdout: string;
  stderr: string;
  /** Minor page faults the run took (with any children it waited for); undefined where Linux's /proc is not. */
  faults?: number;
};

export type SpawnOpts = { env?: Record<string, string>; cwd?: string };

/** Runs `cmd` to completion, draining both pipes so a chatty child can never block on a full pipe. */
export async function timeRun(cmd: string[], opts: SpawnOpts = {}): Promise<Run> {
  const faultsBefore = reapedChildFaults();
  const startedAt = Date.now();
  const t0 = performance.now();
  const proc = Bun.spawn(cmd, { ...opts, stdin: "ignore", stdout: "pipe", stderr: "pipe" });
  const [stdout, stderr, code] = await Promise.all([
    new Response(proc.stdout).text(),
    new Response(proc.stderr).text(),
    proc.exited,
  ]);
  const ms = performance.now() - t0;
  const faultsAfter = reapedChildFaults();
  const faults = faultsBefore === undefined || faultsAfter === undefined ? undefined : faultsAfter - faultsBefore;
  return { ms, startedAt, code, stdout, stderr, ...(faults === undefined ? {} : { faults }) };
}

/**
 * The minor page faults of every child this process has waited for so far: Linux's `cminflt`, field 11 of
 * /proc/self/stat. Across one timeRun the difference is that run's own while no other child ends meanwhile, as where
 * the benches call it (one run at a time; a daemon they started ends only after). Unlike wall time it hardly moves
 * with the machine's load (~1 % between runs); on a VM where a fault is dear it is most of a start-up's cost.
 * Undefined where /proc is not (macOS).
 */
function reapedChildFaults(): number | undefined {
  const cminflt = Number(procStatFields("self")?.[11 - 3]);
  return Number.isFinite(cminflt) ? cminflt : undefined;
}

/**
 * /proc/<pid>/stat's fields after the command's name, which is in parentheses and may itself hold spaces: the first
 * is field 3 (the state), so field N is at N - 3 (minflt 10, cminflt 11, utime 14). Undefined without /proc.
 */
export function procStatFields(pid: number | "self"): string[] | undefined {
  let stat: string;
  try {
    stat = readFileSync(`/proc/${pid}/stat`, "utf8");
  } catch {
    return undefined;
  }
  return stat.slice(stat.lastIndexOf(")") + 2).split(" ");
}

/**
 * `warmup` discarded runs (page cache, JIT of the bench itself, first-run files like memory.db), then `runs`
 * measured ones. `check` throws on a run that did not do what it should, so a broken setup cannot pass as fast.
 */
export async function sample(
  runs: number,
  warmup: number,
  once: () => Promise<Run>,
  check: (run: Run) => void = () => {},
): Promise<Run[]> {
  const kept: Run[] = [];
  for (let i = 0; i < warmup + runs; i++) {
    const run = await once();
    check(run);
    if (i >= warmup) kept.push(run);
  }
  return kept;
}

/**
 * Runs `a` and `b` alternately (A B A B …): `warmup` discarded pairs, then `runs` measured pairs. Both then see
 * the same machine load at each moment, which is what makes their ratio mean something on a busy machine.
 * Each `once` throws on a run that did not do what it should.
 */
export async function sampleInterleaved<R>(
  runs: number,
  warmup: number,
  a: () => Promise<R>,
  b: () => Promise<R>,
): Promise<{ a: R[]; b: R[] }> {
  const [keptA, keptB] = await sampleRounds(runs, warmup, [a, b]);
  return { a: keptA!, b: keptB! };
}

/**
 * sampleInterleaved for any number of programs: each in turn, round after round (A B C A B C …), `warmup` rounds
 * discarded; the runs of each come back in the order given.
 */
export async function sampleRounds<R>(
  runs: number,
  warmup: number,
  programs: readonly (() => Promise<R>)[],
): Promise<R[][]> {
  const kept = programs.map(() => [] as R[]);
  for (let i = 0; i < warmup + runs; i++) {
    for (let j = 0; j < programs.length; j++) {
      const ran = await programs[j]!();
      if (i >= warmup) kept[j]!.push(ran);
    }
  }
  return kept;
}

export type Stats = { median: number; p90: number };

export function stats(values: number[]): Stats {
  const sorted = [...values].sort((a, b) => a - b);
  const n = sorted.length;
  if (n === 0) return { median: Number.NaN, p90: Number.NaN };
  const median = n % 2 === 1 ? sorted[(n - 1) / 2]! : (sorted[n / 2 - 1]! + sorted[n / 2]!) / 2;
  // Nearest-rank percentile: an actual observed value, no interpolation.
  const p90 = sorted[Math.min(n - 1, Math.ceil(0.9 * n) - 1)]!;
  return { median, p90 };
}

export type Daemon = { stop(): Promise<number> };

/**
 * Starts a long-running child and resolves once its stderr shows `ready` — the daemon's own readiness
 * line, so the bench never guesses with a sleep. Rejects if it exits or stays silent for `timeoutMs`.
 */
export async function startUntilReady(cmd: string[], opts: SpawnOpts, ready: string, timeoutMs = 15_000) {
  const proc = Bun.spawn(cmd, { ...opts, stdin: "ignore", stdout: "pipe", stderr: "pipe" });
  // Keep both pipes drained for the daemon's whole life: it logs every ask, and a full pipe would block it.
  const stdoutDone = new Response(proc.stdout).text();
  let log = "";
  let signalReady: () => void = () => {};
  const isReady = new Promise<void>((resolve) => {
    signalReady = resolve;
  });
  const stderrDone = (async () => {
    const decoder = new TextDecoder();
    for await (const chunk of proc.stderr) {
      log += decoder.decode(chunk, { stream: true });
      if (log.includes(ready)) signalReady();
    }
  })();

  let timer: Timer | undefined;
  const failure = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`no "${ready}" on stderr after ${timeoutMs} ms:\n${log}`)), timeoutMs);
    proc.exited.then((code) => reject(new Error(`${cmd.join(" ")} exited ${code} before ready:\n${log}`)));
  });
  failure.catch(() => {}); // stays pending or rejects harmlessly once we are past readiness
  try {
    await Promise.race([isReady, failure]);
  } catch (err) {
    proc.kill("SIGKILL");
    throw err;
  } finally {
    clearTimeout(timer);
  }

  const daemon: Daemon = {
    async stop() {
      proc.kill("SIGTERM");
      const kill = setTimeout(() => proc.kill("SIGKILL"), 5_000);
      const code = await proc.exited;
      clearTimeout(kill);
      await Promise.all([stdoutDone, stderrDone]);
      return code;
    },
  };
  return daemon;
}

/** `--binary PATH` or dist/fermix, which must exist (exit 1 with how to build it otherwise). */
export function benchBinary(given: string | undefined): string {
  const binary = resolve(given ?? join(import.meta.dir, "..", "dist", "fermix"));
  if (!existsSync(binary)) {
    console.error(`${binary} not found — build it first with \`npm run build\` (or pass --binary PATH)`);
    process.exit(1);
  }
  return binary;
}

/**
 * `binary` copied into `dir`, to be measured from there. The floors are compiled in the run, so their pages sit in the
 * page cache as a file just written; a binary read back from disk (after a reboot, or bench/daemon-rss's cache drop)
 * sits there differently, and costs more page faults for the same work (`--version`: 726 freshly written, 773 read
 * back, same bytes). A copy made now starts where the floors start.
 */
export async function freshCopy(binary: string, dir: string): Promise<string> {
  const copy = join(dir, "fermix");
  await Bun.write(copy, Bun.file(binary));
  await chmod(copy, 0o755);
  return copy;
}

/** `--runs N`, a whole number ≥ 1 (exit 2 otherwise). */
export function benchRuns(given: string | undefined): number {
  const runs = Number(given);
  if (!Number.isInteger(runs) || runs < 1) {
    console.error("--runs takes a whole number ≥ 1");
    process.exit(2);
  }
  return runs;
}

/**
 * The environment a bench's daemon and asks share: a fresh FERMIX_HOME under `root` (created, owner-only) whose
 * provider is the fake OpenAI server at `baseUrl`, and nothing else of this machine's.
 */
export async function fakeProviderEnv(root: string, baseUrl: string, apiKey: string) {
  const env = {
    FERMIX_HOME: join(root, "home"),
    HOME: root,
    OPENAI_API_KEY: apiKey,
    OPENAI_BASE_URL: baseUrl,
    PATH: "/usr/bin:/bin",
  };
  await mkdir(env.FERMIX_HOME, { recursive: true, mode: 0o700 });
  return env;
}
